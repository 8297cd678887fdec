// tests/key_sets.hpp — reproducible sets of test keys: distinct strings of assorted lengths
// and bytes, and random 64-bit integers.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace bloomkit_test {

/// `count` distinct strings (random bytes of 0..39 characters, then the index), from `seed`.
inline std::vector<std::string> string_keys(std::size_t count, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::string> keys;
    keys.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        std::string key(rng() % 40, '\0');
        for (char& c : key) c = static_cast<char>(rng());
        keys.push_back(std::move(key) + std::to_string(i));  // distinct
    }
    return keys;
}

/// `count` random 64-bit integers from `seed`. Two sets from different seeds share a key with
/// probability about count² / 2^64: used as keys never inserted.
inline std::vector<std::uint64_t> random_numbers(std::size_t count, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::uint64_t> numbers(count);
    for (auto& n : numbers) n = rng();
    return numbers;
}

}  // namespace bloomkit_test
