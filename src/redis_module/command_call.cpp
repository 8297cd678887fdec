// src/redis_module/command_call.cpp — see command_call.hpp.
#include "redis_module/command_call.hpp"

#include <algorithm>
#include <new>

namespace bloomkit::redis_module {

std::string_view command_call::arg(int i) const noexcept {
    std::size_t length = 0;
    const char* bytes = api.string_ptr_len(argv_[i], &length);
    return {bytes, length};
}

bool command_call::is(int i, std::string_view word) const noexcept {
    const std::string_view a = arg(i);
    return a.size() == word.size() && std::equal(a.begin(), a.end(), word.begin(), [](char x, char upper) {
               return (x >= 'a' && x <= 'z' ? static_cast<char>(x - 'a' + 'A') : x) == upper;
           });
}

std::optional<long long> command_call::integer(int i) const noexcept {
    long long value = 0;
    if (api.string_to_long_long(argv_[i], &value) != module_ok) return std::nullopt;
    return value;
}

std::optional<double> command_call::number(int i) const noexcept {
    double value = 0;
    if (api.string_to_double(argv_[i], &value) != module_ok) return std::nullopt;
    return value;
}

int command_call::error(std::string_view text) const {
    std::string line(text);
    std::replace_if(
        line.begin(), line.end(), [](char c) { return c == '\r' || c == '\n'; }, ' ');
    return api.reply_with_error(ctx_, line.c_str());
}

int run_command(command_body body, context* ctx, string** argv, int argc) noexcept {
    const command_call call(ctx, argv, argc);
    try {
        return body(call);
    } catch (const arity_error&) {
        return call.wrong_arity();
    } catch (const module_error& e) {
        return call.error(e.what());
    } catch (const std::bad_alloc&) {
        return call.error("ERR Insufficient memory for the filter");
    } catch (const std::exception& e) {
        return call.error(std::string("ERR ") + e.what());
    } catch (...) {
        return call.error("ERR unexpected failure in the bloomkit module");
    }
}

}  // namespace bloomkit::redis_module
