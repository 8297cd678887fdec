// src/jobs/heavy_hitters.hpp — the most frequent lines of a stream in one pass and fixed memory:
// the Space-Saving algorithm (Metwally, Agrawal and El Abbadi, "Efficient computation of frequent
// and top-k elements in data streams", ICDT 2005).
//
// m counters watch m lines. A watched line's counter goes up by one; an unwatched line takes the
// counter of the least counted line, whose count c it inherits plus one, and remembers c as its
// error. So every count is an overestimate by at most its error (count - error <= true count <=
// count), every error is at most N / m after N lines, and every line seen more than N / m times is
// watched. The smallest counter is found with a binary min-heap, each counter knowing its place.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace bloomkit::jobs {

class heavy_hitters {
public:
    struct counter {
        std::string line;
        std::uint64_t count = 0;
        std::uint64_t error = 0;  // count - error <= the true count
    };

    /// Watches at most `counters` lines (at least 1).
    explicit heavy_hitters(std::size_t counters) : capacity_(std::max<std::size_t>(counters, 1)) {}

    void add(std::string_view line) {
        ++seen_;
        if (const auto found = index_.find(line); found != index_.end()) {
            ++counters_[found->second].count;
            sift_down(place_[found->second]);
            return;
        }
        if (counters_.size() < capacity_) {
            counters_.push_back({std::string(line), 1, 0});
            place_.push_back(heap_.size());
            heap_.push_back(counters_.size() - 1);
            index_.emplace(counters_.back().line, counters_.size() - 1);
            sift_up(heap_.size() - 1);
            return;
        }
        const std::size_t least = heap_.front();  // replaced: the new line inherits its count
        counter& c = counters_[least];
        index_.erase(c.line);
        c.error = c.count;
        ++c.count;
        c.line.assign(line);
        index_.emplace(c.line, least);
        sift_down(0);
    }

    /// The `k` largest counts, largest first, ties by the line's bytes.
    [[nodiscard]] std::vector<counter> top(std::size_t k) const {
        std::vector<counter> all = counters_;
        const auto first = [](const counter& a, const counter& b) {
            return a.count != b.count ? a.count > b.count : a.line < b.line;
        };
        const std::size_t n = std::min(k, all.size());
        std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n), all.end(), first);
        all.resize(n);
        return all;
    }

    /// The largest error any count can have: N / m (0 while fewer lines than counters came).
    [[nodiscard]] std::uint64_t error_bound() const noexcept {
        return counters_.size() < capacity_ ? 0 : seen_ / capacity_;
    }
    [[nodiscard]] std::uint64_t lines() const noexcept { return seen_; }

private:
    // The heap holds indices of counters_, least count on top; place_[i] is counter i's place in it.
    void swap_places(std::size_t a, std::size_t b) {
        std::swap(heap_[a], heap_[b]);
        place_[heap_[a]] = a;
        place_[heap_[b]] = b;
    }
    [[nodiscard]] bool less(std::size_t a, std::size_t b) const {
        return counters_[heap_[a]].count < counters_[heap_[b]].count;
    }
    void sift_up(std::size_t at) {
        while (at > 0 && less(at, (at - 1) / 2)) {
            swap_places(at, (at - 1) / 2);
            at = (at - 1) / 2;
        }
    }
    void sift_down(std::size_t at) {
        for (;;) {
            std::size_t least = at;
            for (const std::size_t child : {2 * at + 1, 2 * at + 2})
                if (child < heap_.size() && less(child, least)) least = child;
            if (least == at) return;
            swap_places(at, least);
            at = least;
        }
    }

    struct text_hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
    };

    std::size_t capacity_;
    std::vector<counter> counters_;
    std::vector<std::size_t> heap_, place_;
    std::unordered_map<std::string, std::size_t, text_hash, std::equal_to<>> index_;
    std::uint64_t seen_ = 0;
};

}  // namespace bloomkit::jobs
