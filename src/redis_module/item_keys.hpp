// src/redis_module/item_keys.hpp — what an item of a BF.* or CF.* command is as a key: its bytes
// for a filter of text keys (every filter the module makes), or the number it spells for a filter
// of integer keys loaded from a bkf file, by the rules every face shares (bloomkit/keys.hpp), so
// BF.EXISTS "7" finds the 7 a C++ or Python program added to an integer filter.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "bloomkit/keys.hpp"
#include "redis_module/module_error.hpp"

namespace bloomkit::redis_module {

/// Calls use(key) with the item as the filter's key; throws module_error for an item that is
/// no number of an integer format.
template <class Use>
decltype(auto) with_item_key(key_format format, std::string_view item, Use&& use) {
    if (!is_integer(format)) return use(item);
    if (const std::optional<key_integer> value = parse_integer_key(item, format)) return use(value->bits);
    const std::string shown = item.size() > 40 ? std::string(item.substr(0, 40)) + "..." : std::string(item);
    throw module_error("ERR the filter holds " + std::string(to_string(format)) + " keys (" +
                       std::string(range_of(format)) + "), one decimal number per item: '" + shown + "' is none");
}

}  // namespace bloomkit::redis_module
