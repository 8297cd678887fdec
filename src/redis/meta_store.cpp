// src/redis/meta_store.cpp — see meta_store.hpp.
#include "meta_store.hpp"

#include <charconv>

#include "run_options.hpp"
#include "scripts.hpp"

namespace bloomkit::redis::detail {
namespace {

std::string_view text_of(const redisReply& r) { return {r.str, r.len}; }

}  // namespace

meta_store::meta_store(client& c, std::string name, const filter_options& options)
    : client_(&c), name_(std::move(name)), key_(name_ + ":meta"), options_(options) {}

std::optional<std::string> meta_store::get() const {
    command_batch get;
    get.start(2, "GET", key_, false);
    std::optional<std::string> text;
    detail::router_of(*client_).run(get, {}, [&](std::size_t, const redisReply& r) {
        if (r.type == REDIS_REPLY_STRING) text = std::string(text_of(r));
        else if (r.type != REDIS_REPLY_NIL) throw server_error("GET " + key_ + ": not a string reply");
    });
    return text;
}

meta_snapshot meta_store::read() const {
    const outcome o = run("*", "");
    return {o.text, o.now_ms};
}

std::optional<std::string> meta_store::swap(std::string_view expected, std::string_view text) const {
    outcome o = run(expected, text);
    if (o.written) return o.text.value_or(std::string());
    // Sent again after a lost connection, the script may find its own write done: the record
    // is `text` with its "written" line (the owner tokens in it are random: nobody else writes
    // that text), or, for a delete, gone.
    const std::string held = o.text.value_or(std::string());
    if (text.empty() ? held.empty() && !expected.empty()
                     : held.starts_with(text) && std::string_view(held).substr(text.size()).starts_with("written "))
        return held;
    return std::nullopt;
}

meta_store::outcome meta_store::run(std::string_view expected, std::string_view text) const {
    command_batch batch;
    batch.start_script(scripts::meta_swap, key_, 2, true);
    batch.argument(expected);
    batch.argument(text);
    outcome result;
    const bool writes = expected != "*";
    detail::router_of(*client_).run(
        batch, run_options_of(*client_, options_, writes), [&](std::size_t, const redisReply& r) {
            if (r.type != REDIS_REPLY_ARRAY || r.elements != 3 || r.element[0]->type != REDIS_REPLY_INTEGER ||
                r.element[1]->type != REDIS_REPLY_STRING || r.element[2]->type != REDIS_REPLY_STRING)
                throw server_error("the script reading " + key_ + " gave a reply of the wrong shape (" + reply_text(r) +
                                   ")");
            const std::string_view now = text_of(*r.element[2]);
            std::from_chars(now.data(), now.data() + now.size(), result.now_ms);
            if (r.element[0]->integer < 0)
                throw filter_mismatch("Redis key " + key_ + " is a " + std::string(text_of(*r.element[1])) +
                                      ", not a bloomkit filter's metadata: the name " + name_ +
                                      " is taken by other data");
            result.written = r.element[0]->integer == 1;
            if (!text_of(*r.element[1]).empty() || result.written) result.text = std::string(text_of(*r.element[1]));
        });
    return result;
}

}  // namespace bloomkit::redis::detail
