// bloomkit/bloomkit.hpp — everything: hashing, sizing, every filter kind and the file format.
#pragma once

#include "bloomkit/binary_fuse_filter.hpp"
#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/counting_bloom_filter.hpp"
#include "bloomkit/cuckoo_filter.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/scalable_bloom_filter.hpp"
#include "bloomkit/sizing.hpp"
