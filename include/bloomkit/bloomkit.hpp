// bloomkit/bloomkit.hpp — everything: hashing, sizing, Bloom filters and the file format.
#pragma once

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/sizing.hpp"
