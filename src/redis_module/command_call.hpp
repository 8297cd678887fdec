// src/redis_module/command_call.hpp — one call of a module command as the commands see it: its
// arguments as bytes and numbers, its key (ours, missing, or of another type) and the replies,
// written so that one command body serves RESP2 and RESP3 clients alike.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "redis_module/module_api.hpp"
#include "redis_module/module_error.hpp"

namespace bloomkit::redis_module {

/// A key opened by a command, closed when it goes.
class open_key {
public:
    open_key(context* ctx, string* name, int mode) : key_(api.open_key(ctx, name, mode)) {}
    open_key(const open_key&) = delete;
    open_key& operator=(const open_key&) = delete;
    ~open_key() { api.close_key(key_); }

    /// Missing (or empty).
    [[nodiscard]] bool empty() const noexcept { return key_ == nullptr || api.key_type(key_) == keytype_empty; }
    /// The value, when the key holds one of `type`; nullptr when it is missing or of another type.
    template <class Value>
    [[nodiscard]] Value* value(data_type* type) const noexcept {
        if (empty() || api.key_type(key_) != keytype_module || api.module_type_get_type(key_) != type) return nullptr;
        return static_cast<Value*>(api.module_type_get_value(key_));
    }
    /// Holds something, but not a value of `type`.
    [[nodiscard]] bool other_type(data_type* type) const noexcept {
        return !empty() && (api.key_type(key_) != keytype_module || api.module_type_get_type(key_) != type);
    }
    [[nodiscard]] key* handle() const noexcept { return key_; }

private:
    key* key_;
};

class command_call {
public:
    command_call(context* ctx, string** argv, int argc) noexcept : ctx_(ctx), argv_(argv), argc_(argc) {}

    [[nodiscard]] context* ctx() const noexcept { return ctx_; }
    [[nodiscard]] int size() const noexcept { return argc_; }
    [[nodiscard]] string* raw(int i) const noexcept { return argv_[i]; }
    [[nodiscard]] std::string_view arg(int i) const noexcept;
    /// Whether argument i is `word`, ignoring case (`word` in upper case).
    [[nodiscard]] bool is(int i, std::string_view word) const noexcept;
    /// Where `word` (upper case) is among the arguments from `from` on, ignoring case; nothing
    /// when absent (RedisBloom finds RESERVE's options anywhere, in any order).
    [[nodiscard]] std::optional<int> find(int from, std::string_view word) const noexcept {
        for (int i = from; i < argc_; ++i)
            if (is(i, word)) return i;
        return std::nullopt;
    }
    /// Argument i as Redis reads an integer (whole string, no spaces), or nothing.
    [[nodiscard]] std::optional<long long> integer(int i) const noexcept;
    /// Argument i as Redis reads a double, or nothing.
    [[nodiscard]] std::optional<double> number(int i) const noexcept;

    /// The command's key (argument 1).
    [[nodiscard]] open_key key(int mode) const { return open_key(ctx_, argv_[1], mode); }

    int wrong_arity() const { return api.wrong_arity(ctx_); }
    int ok() const { return api.reply_with_simple_string(ctx_, "OK"); }
    /// An error reply of `text` (line breaks, which would end the reply early, become spaces).
    int error(std::string_view text) const;
    int integer_reply(long long value) const { return api.reply_with_long_long(ctx_, value); }
    /// RESP3 true/false; RESP2 clients get the integer 1/0 that RedisBloom has always sent.
    int boolean(bool value) const { return api.reply_with_bool(ctx_, value ? 1 : 0); }
    int simple(const char* text) const { return api.reply_with_simple_string(ctx_, text); }
    int bulk(std::span<const std::byte> bytes) const {
        return api.reply_with_string_buffer(ctx_, reinterpret_cast<const char*>(bytes.data()), bytes.size());
    }
    int null() const { return api.reply_with_null(ctx_); }
    int array(long length) const { return api.reply_with_array(ctx_, length); }
    void set_array_length(long length) const { api.reply_set_array_length(ctx_, length); }
    /// A map of `pairs` (RESP3), an array of 2·pairs in RESP2.
    int map(long pairs) const { return api.reply_with_map(ctx_, pairs); }
    [[nodiscard]] bool resp3() const { return (api.get_context_flags(ctx_) & context_flag_resp3) != 0; }

    /// Sends the command to replicas and the AOF as it came.
    void replicate() const { api.replicate_verbatim(ctx_); }

private:
    context* ctx_;
    string** argv_;
    int argc_;
};

/// Thrown where the arguments are found to be too few: the reply is Redis's arity error.
struct arity_error {};

/// The entry Redis calls for a command whose body is `Body`: every exception becomes an error
/// reply (module_error's text as it is, arity_error the arity error, any other "ERR " and what it
/// says); none reaches Redis.
using command_body = int (*)(const command_call&);
int run_command(command_body body, context* ctx, string** argv, int argc) noexcept;

template <command_body Body>
int command_entry(context* ctx, string** argv, int argc) {
    return run_command(Body, ctx, argv, argc);
}

}  // namespace bloomkit::redis_module
