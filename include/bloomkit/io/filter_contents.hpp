// bloomkit/io/filter_contents.hpp — what reading a filter file of any format gives and takes
// (formats.hpp): the filter, the format it was in and the bytes some formats carry beside
// it; and what a reader must be told that a format does not record.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "bloomkit/hash.hpp"
#include "bloomkit/kinds.hpp"

namespace bloomkit::io {

/// How a reader takes what a format does not record.
struct read_options {
    /// The Guava funnel of a Guava stream: the Java writer's (a stream does not say). None:
    /// Funnels.longFunnel() when `keys` says integers, Funnels.stringFunnel(UTF_8) otherwise.
    guava_funnel funnel = guava_funnel::none;
    /// What the keys of a file that cannot record it are (a Guava stream, a DCSO file), as its
    /// reader says; the filter read records it. Unrecorded: a Guava stream's funnel says (i64 for
    /// Java's ints and longs, text for the rest), a DCSO file's are text.
    key_format keys = key_format::unrecorded;
};

/// A filter as read from a file of any format: the filter, the format's word, and the bytes a
/// DCSO file carries after its bits (`bloom set-data`; empty for the others).
struct filter_contents {
    any_filter filter;                ///< the filter, of whatever kind the file holds
    std::string_view format;          ///< the format's word: "bkf", "guava" or "dcso"
    std::vector<std::byte> attached;  ///< a DCSO file's data after its bits; empty for the others
};

}  // namespace bloomkit::io
