// bloomkit/detail/word_access.hpp — how a filter reads and sets bits in its words: plainly, for
// a filter owned by one thread, or atomically, when several threads insert at once.
//
// Relaxed std::atomic_ref suffices: bits are only ever set, so the order other words change in
// cannot matter, and a reader synchronised with a writer by other means (a join, a mutex) sees
// every bit it set before.
#pragma once

#include <atomic>
#include <type_traits>

namespace bloomkit::detail {

/// Plain loads and read-modify-writes: the fastest, for exclusive access.
struct plain_access {
    template <class Word>
    static Word load(const Word& word) noexcept {
        return word;
    }
    /// Returns the bits of `mask` that were clear: a word, so callers OR a key's and test once.
    template <class Word>
    static Word set(Word& word, Word mask) noexcept {
        const Word old = word;
        word = old | mask;
        return mask & ~old;
    }
};

/// Relaxed atomic loads and fetch_or: any number of threads may set and test bits at once.
struct atomic_access {
    template <class Word>
    static Word load(const Word& word) noexcept {
        // atomic_ref needs a non-const referent; a load never writes through it.
        return std::atomic_ref<Word>(const_cast<Word&>(word)).load(std::memory_order_relaxed);
    }
    template <class Word>
    static Word set(Word& word, Word mask) noexcept {
        // A locked OR takes the line exclusive; a load first skips it where the bits are set, as
        // they increasingly are while a filter fills.
        std::atomic_ref<Word> atomic(word);
        if ((atomic.load(std::memory_order_relaxed) & mask) == mask) return 0;
        return mask & ~atomic.fetch_or(mask, std::memory_order_relaxed);
    }
};

}  // namespace bloomkit::detail
