// bloomkit/detail/word_access.hpp — how a filter reads and sets bits in its words: plainly, for
// a filter owned by one thread, or atomically, when several threads insert at once.
//
// The atomic flavour uses relaxed std::atomic_ref operations. Relaxed suffices: bits are only
// ever set, never cleared, so the order in which other words change cannot matter, and a
// reader that synchronises with a writer by other means (joining its thread, a mutex, a
// release/acquire pair) sees every bit that writer set before. On x86-64 and AArch64 a relaxed
// load is a plain load; a relaxed fetch_or is a locked OR.
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
    /// Sets the bits of `mask` in `word`; returns those of them that were clear. A word, not a
    /// bool: callers OR the results of a key's words and test once, with no branch per word.
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
        // A locked OR costs ~20 cycles and takes the line exclusive; a plain load is free when
        // the bits are already there, as they increasingly are while a filter fills.
        std::atomic_ref<Word> atomic(word);
        if ((atomic.load(std::memory_order_relaxed) & mask) == mask) return 0;
        return mask & ~atomic.fetch_or(mask, std::memory_order_relaxed);
    }
};

}  // namespace bloomkit::detail
