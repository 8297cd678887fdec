// bloomkit/sizing.hpp — every kind's sizing: from (n keys, false-positive rate p) to a geometry,
// one plan_<kind>() per kind, and the models behind them. Pure functions, no allocation; the
// filters' (n, p) constructors and `bloomkit plan` use exactly these.
#pragma once

#include "bloomkit/sizing/binary_fuse.hpp"
#include "bloomkit/sizing/bloom.hpp"
#include "bloomkit/sizing/by_memory.hpp"
#include "bloomkit/sizing/counting_bloom.hpp"
#include "bloomkit/sizing/cuckoo.hpp"
#include "bloomkit/sizing/models.hpp"
#include "bloomkit/sizing/scalable_bloom.hpp"
