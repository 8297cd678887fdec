// src/redis/url.cpp — where to connect, as users write it: "redis://[user:password@]host[:port]
// [/db]" (the scheme of redis-cli -u and every client library), "unix:///path/to/socket", or a
// bare "host:port"; several, comma-separated, for the seed nodes of a cluster.
#include <charconv>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/redis.hpp"

namespace bloomkit::redis {
namespace {

[[noreturn]] void bad(std::string_view url, std::string_view why) {
    throw invalid_argument("bad Redis address '" + std::string(url) + "': " + std::string(why) +
                           " (expected redis://[user:password@]host[:port][/db], unix:///path or host:port)");
}

template <class Number>
Number parse_number(std::string_view url, std::string_view text, Number low, Number high, std::string_view what) {
    Number value{};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < low || value > high)
        bad(url, std::string(what) + " '" + std::string(text) + "' is not a number from " + std::to_string(low) + " to " +
                     std::to_string(high));
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

endpoint parse_one(std::string_view url) {
    endpoint e;
    std::string_view rest = url;
    if (rest.starts_with("unix://")) {
        e.socket = std::string(rest.substr(7));
        if (e.socket.empty() || e.socket[0] != '/') bad(url, "a Unix socket needs an absolute path");
        return e;
    }
    if (rest.starts_with("rediss://")) bad(url, "TLS (rediss://) is not supported by Debian's hiredis 0.14");
    if (rest.starts_with("redis://")) {
        rest.remove_prefix(8);
        if (const auto slash = rest.find('/'); slash != std::string_view::npos) {
            const std::string_view db = rest.substr(slash + 1);
            if (!db.empty()) e.db = parse_number<int>(url, db, 0, 1 << 20, "database");
            rest = rest.substr(0, slash);
        }
        if (const auto at = rest.rfind('@'); at != std::string_view::npos) {
            const std::string_view credentials = rest.substr(0, at);
            const auto colon = credentials.find(':');
            if (colon == std::string_view::npos) {
                e.password = percent_decoded(url, credentials);  // redis://secret@host: a password alone
            } else {
                e.user = percent_decoded(url, credentials.substr(0, colon));
                e.password = percent_decoded(url, credentials.substr(colon + 1));
            }
            rest = rest.substr(at + 1);
        }
    } else if (rest.find("://") != std::string_view::npos) {
        bad(url, "unknown scheme");
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
        if (colon != std::string_view::npos) e.port = parse_number<std::uint16_t>(url, rest.substr(colon + 1), 1, 65535, "port");
    }
    if (e.host.empty()) bad(url, "no host");
    return e;
}

}  // namespace

std::vector<endpoint> parse_url(std::string_view url) {
    std::vector<endpoint> endpoints;
    while (true) {
        const auto comma = url.find(',');
        const std::string_view one = url.substr(0, comma);
        if (one.empty()) bad(url, "an empty address");
        endpoints.push_back(parse_one(one));
        if (comma == std::string_view::npos) break;
        url.remove_prefix(comma + 1);
    }
    return endpoints;
}

}  // namespace bloomkit::redis
