// src/redis/url.cpp — where to connect, as users write it: "redis://[user:password@]host[:port]
// [/db]" (the scheme of redis-cli -u and every client library), "unix://[user:password@]/path
// [?db=N]" (the form of go-redis and others), or a bare "host:port"; several, comma-separated,
// for the seed nodes of a cluster. And the same URLs with their passwords masked, for every
// message that shows one.
#include <charconv>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/redis.hpp"

namespace bloomkit::redis {
namespace {

constexpr std::string_view masked = "***";

// Where the credentials of one address are: [begin, end) of "user:password", end at the '@'.
// (A unix:// path may hold '@' itself: its credentials end at the "@/" that starts the path.)
struct userinfo {
    std::size_t begin = std::string_view::npos, end = std::string_view::npos;
    [[nodiscard]] bool found() const noexcept { return end != std::string_view::npos; }
};
userinfo find_userinfo(std::string_view address) {
    const auto scheme = address.find("://");
    const std::size_t begin = scheme == std::string_view::npos ? 0 : scheme + 3;
    const std::string_view rest = address.substr(begin);
    std::size_t at = std::string_view::npos;
    if (address.starts_with("unix://")) {
        if (!rest.starts_with('/')) at = rest.find("@/") != std::string_view::npos ? rest.find("@/") : rest.rfind('@');
    } else {
        at = rest.rfind('@');
    }
    if (at == std::string_view::npos) return {};
    return {begin, begin + at};
}

// The addresses of a comma-separated list. A comma inside credentials (before the '@' of its
// URL) belongs to the password, not to the list.
std::vector<std::string_view> split_addresses(std::string_view url) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= url.size(); ++i) {
        if (i < url.size() && url[i] != ',') continue;
        if (i < url.size()) {
            const std::string_view current = url.substr(start, i - start);
            const std::string_view after = url.substr(i + 1);
            const auto next_at = after.find('@');
            const bool in_credentials =
                current.find("://") != std::string_view::npos && current.find('@') == std::string_view::npos &&
                next_at != std::string_view::npos && after.substr(0, next_at).find("://") == std::string_view::npos &&
                after.substr(0, next_at).find('/') == std::string_view::npos;
            if (in_credentials) continue;
        }
        parts.push_back(url.substr(start, i - start));
        start = i + 1;
    }
    return parts;
}

std::string redacted_one(std::string_view address) {
    const userinfo info = find_userinfo(address);
    if (!info.found()) return std::string(address);
    const std::string_view credentials = address.substr(info.begin, info.end - info.begin);
    const auto colon = credentials.find(':');
    const std::string shown = colon == std::string_view::npos
                                  ? std::string(masked)
                                  : std::string(credentials.substr(0, colon + 1)) + std::string(masked);
    return std::string(address.substr(0, info.begin)) + shown + std::string(address.substr(info.end));
}

[[noreturn]] void bad(std::string_view url, std::string_view why) {
    throw invalid_argument("bad Redis address '" + redacted_url(url) + "': " + std::string(why) +
                           " (expected redis://[user:password@]host[:port][/db], unix://[user:password@]/path[?db=N] "
                           "or host:port)");
}

template <class Number>
Number parse_number(std::string_view url, std::string_view text, Number low, Number high, std::string_view what) {
    Number value{};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < low || value > high)
        bad(url, std::string(what) + " '" + std::string(text) + "' is not a number from " + std::to_string(low) +
                     " to " + std::to_string(high));
    return value;
}

// "%40" and friends in a user name or password.
std::string percent_decoded(std::string_view url, std::string_view text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '%') {
            out += text[i];
            continue;
        }
        if (i + 2 >= text.size()) bad(url, "a '%' escape needs two hex digits");
        unsigned value = 0;
        const auto [end, ec] = std::from_chars(text.data() + i + 1, text.data() + i + 3, value, 16);
        if (ec != std::errc() || end != text.data() + i + 3) bad(url, "a '%' escape needs two hex digits");
        out += static_cast<char>(value);
        i += 2;
    }
    return out;
}

// user:password (or a password alone) into `e`.
void read_credentials(std::string_view url, std::string_view credentials, endpoint& e) {
    const auto colon = credentials.find(':');
    if (colon == std::string_view::npos) {
        e.password = percent_decoded(url, credentials);  // redis://secret@host: a password alone
    } else {
        e.user = percent_decoded(url, credentials.substr(0, colon));
        e.password = percent_decoded(url, credentials.substr(colon + 1));
    }
}

endpoint parse_unix(std::string_view url) {
    endpoint e;
    std::string_view rest = url.substr(7);
    if (const userinfo info = find_userinfo(url); info.found()) {
        read_credentials(url, url.substr(info.begin, info.end - info.begin), e);
        rest = url.substr(info.end + 1);
    }
    if (const auto query = rest.find('?'); query != std::string_view::npos) {
        const std::string_view parameter = rest.substr(query + 1);
        if (!parameter.starts_with("db=")) bad(url, "the only parameter of a unix:// address is ?db=N");
        e.db = parse_number<int>(url, parameter.substr(3), 0, 1 << 20, "database");
        rest = rest.substr(0, query);
    }
    e.socket = std::string(rest);
    if (e.socket.empty() || e.socket[0] != '/') bad(url, "a Unix socket needs an absolute path");
    return e;
}

endpoint parse_one(std::string_view url) {
    if (url.starts_with("unix://")) return parse_unix(url);
    if (url.starts_with("rediss://")) bad(url, "TLS (rediss://) is not supported by Debian's hiredis 0.14");
    endpoint e;
    std::string_view rest = url;
    if (rest.starts_with("redis://")) {
        rest.remove_prefix(8);
        // The credentials first: a password may hold '/' or ':', the host part never '@'.
        if (const userinfo info = find_userinfo(url); info.found()) {
            read_credentials(url, url.substr(info.begin, info.end - info.begin), e);
            rest = url.substr(info.end + 1);
        }
        if (const auto slash = rest.find('/'); slash != std::string_view::npos) {
            const std::string_view db = rest.substr(slash + 1);
            if (!db.empty()) e.db = parse_number<int>(url, db, 0, 1 << 20, "database");
            rest = rest.substr(0, slash);
        }
    } else if (rest.find("://") != std::string_view::npos) {
        bad(url, "unknown scheme");
    } else if (rest.find('@') != std::string_view::npos) {
        bad(url, "credentials need the redis:// form (redis://user:password@host:port)");
    }
    e.port = 6379;
    if (!rest.empty() && rest.front() == '[') {  // [::1]:6379
        const auto close = rest.find(']');
        if (close == std::string_view::npos) bad(url, "an IPv6 address needs its closing ']'");
        e.host = std::string(rest.substr(1, close - 1));
        rest.remove_prefix(close + 1);
        if (!rest.empty()) {
            if (rest.front() != ':') bad(url, "expected ':port' after the IPv6 address");
            e.port = parse_number<std::uint16_t>(url, rest.substr(1), 1, 65535, "port");
        }
    } else {
        const auto colon = rest.rfind(':');
        e.host = std::string(rest.substr(0, colon));
        if (colon != std::string_view::npos)
            e.port = parse_number<std::uint16_t>(url, rest.substr(colon + 1), 1, 65535, "port");
    }
    if (e.host.empty()) bad(url, "no host");
    return e;
}

}  // namespace

std::vector<endpoint> parse_url(std::string_view url) {
    std::vector<endpoint> endpoints;
    for (const std::string_view one : split_addresses(url)) {
        if (one.empty()) bad(url, "an empty address");
        endpoints.push_back(parse_one(one));
    }
    return endpoints;
}

std::string redacted_url(std::string_view url) {
    std::string out;
    for (const std::string_view one : split_addresses(url)) {
        if (!out.empty()) out += ',';
        out += redacted_one(one);
    }
    return out;
}

}  // namespace bloomkit::redis
