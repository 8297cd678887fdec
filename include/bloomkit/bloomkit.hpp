// bloomkit/bloomkit.hpp — everything: hashing, sizing, every filter kind, the bkf format on
// files, bytes and streams, Guava's and DCSO's formats, and any_filter.
//
// A guided tour, bottom up (docs/ARCHITECTURE.md has the picture):
//   hash.hpp            a key to its bytes, the bytes to one 128-bit digest (hash/: Guava's
//                       murmur3 and funnels, DCSO's FNV-1, byte order)
//   sizing.hpp          (n, p) to a geometry, one plan_<kind>() per kind, and the FPR models
//   layouts/            where a key's bits go: classic, block, split block, counting block,
//                       and Guava's and DCSO's, bit for bit
//   *_filter.hpp        one header per kind: the filter and its registry entry
//   io/*_codec.hpp      one codec per kind: how it is stored, what its header says
//   kinds.hpp           the registry: every filter type (with its codec), what each can do,
//                       choosing one
//   io/bkf.hpp          to_bytes / from_bytes, save / load on streams
//   io/guava.hpp        Guava's BloomFilter streams (writeTo / readFrom); io/dcso.hpp: DCSO bloom files
//   any_filter.hpp      a filter whose kind is known at run time
//   bulk.hpp            batches of keys for any kind: insert, contains, remove, count, hash
//   file.hpp            save / load / map on paths
//   file_update.hpp     adding keys to a Bloom filter file in place
//   formats.hpp         any of the formats, told by its bytes; conversions that are exact
#pragma once

#include "bloomkit/any_filter.hpp"
#include "bloomkit/bulk.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/file_update.hpp"
#include "bloomkit/formats.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/io/bkf.hpp"
#include "bloomkit/io/dcso.hpp"
#include "bloomkit/io/guava.hpp"
#include "bloomkit/kinds.hpp"
#include "bloomkit/memory.hpp"
#include "bloomkit/options.hpp"
#include "bloomkit/simd.hpp"
#include "bloomkit/sizing.hpp"
#include "bloomkit/version.hpp"
