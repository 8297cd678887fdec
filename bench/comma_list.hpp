// bench/comma_list.hpp — "a,b,c" as {"a", "b", "c"}: how the benchmark programs take lists on
// their command lines (--only, --n, --fpr).
#pragma once

#include <algorithm>
#include <string>
#include <vector>

inline std::vector<std::string> names(const std::string& list) {
    std::vector<std::string> items;
    for (std::size_t start = 0; start <= list.size();) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        items.push_back(list.substr(start, comma - start));
        start = comma + 1;
    }
    return items;
}
