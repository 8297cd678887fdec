// src/redis/meta_store.hpp — reading and writing NAME:meta (metadata.hpp): a plain GET for
// whoever only reads a filter (a user with read rights alone can open it), and for those who
// create, push or drop one a compare-and-set (scripts::meta_swap), which stamps the text with
// the server's clock and reports that clock, so that the age of a claim is measured by one
// clock whatever the clients' clocks say.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bloomkit/redis.hpp"

namespace bloomkit::redis::detail {

/// NAME:meta's text (nullopt: no such key) and the server's clock in ms when it was read.
struct meta_snapshot {
    std::optional<std::string> text;
    std::int64_t now_ms = 0;
};

class meta_store {
public:
    meta_store(client& c, std::string name, const filter_options& options);

    /// GET NAME:meta.
    [[nodiscard]] std::optional<std::string> get() const;
    /// NAME:meta and the server's clock.
    [[nodiscard]] meta_snapshot read() const;
    /// Replaces NAME:meta's text by `text` ("" deletes it) if it is `expected` ("" for no
    /// key); returns the text written (with its "written" line), or nullopt when NAME:meta
    /// holds something else. (Deleting a record that someone else deleted counts as done.)
    [[nodiscard]] std::optional<std::string> swap(std::string_view expected, std::string_view text) const;

    [[nodiscard]] const std::string& name() const noexcept { return name_; }
    [[nodiscard]] const std::string& key() const noexcept { return key_; }
    [[nodiscard]] client& connection() const noexcept { return *client_; }
    [[nodiscard]] const filter_options& options() const noexcept { return options_; }

private:
    // Runs scripts::meta_swap: whether it wrote, the text (written or held), the server's clock.
    struct outcome {
        bool written = false;
        std::optional<std::string> text;
        std::int64_t now_ms = 0;
    };
    outcome run(std::string_view expected, std::string_view text) const;

    client* client_;
    std::string name_, key_;
    filter_options options_;
};

}  // namespace bloomkit::redis::detail
