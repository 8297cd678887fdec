// src/redis/url.cpp — where to connect, as users write it: "redis://[user:password@]host[:port]
// [/db]" (the scheme of redis-cli -u and every client library), "unix://[user:password@]/path
// [?db=N]" (the form of go-redis and others), or a bare "host:port"; several, comma-separated,
// for the seed nodes of a cluster. And the same URLs with their passwords masked, for every
// message that shows one.
//
// Credentials may hold any character, ',' '/' ':' '@' '#' '?' included: they end at the last '@'
// of their address (for unix://, at the last "@/", where the path starts), and only the host
// part after it ends at a ','. Where a text could be read either way, more of it is taken for
// credentials, never less: what is taken for a host or a port may be shown in a message, what is
// taken for credentials never is. Every message shows an address only through redacted().
#include <algorithm>
#include <charconv>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/redis.hpp"

namespace bloomkit::redis {
namespace {

constexpr std::string_view masked = "***";
constexpr auto npos = std::string_view::npos;

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The length of the "scheme://" that starts `text` (a letter, then letters, digits, '+', '-' or
// '.', as RFC 3986 spells a scheme), or 0.
std::size_t scheme_length(std::string_view text) {
    if (text.empty() || !is_letter(text[0])) return 0;
    std::size_t i = 1;
    while (i < text.size() &&
           (is_letter(text[i]) || is_digit(text[i]) || text[i] == '+' || text[i] == '-' || text[i] == '.'))
        ++i;
    return text.substr(i).starts_with("://") ? i + 3 : 0;
}

// One address of a list, and where its parts are.
struct address {
    std::string_view text;
    std::size_t scheme = 0;  // the length of its "scheme://", 0 without
    std::size_t at = npos;   // the '@' that ends its credentials, npos without

    [[nodiscard]] bool has_credentials() const noexcept { return at != npos; }
    [[nodiscard]] bool is_unix() const noexcept { return text.starts_with("unix://"); }
    // "user:password", or a password alone.
    [[nodiscard]] std::string_view credentials() const { return text.substr(scheme, at - scheme); }
    // What follows the scheme and the credentials: host[:port][/db], or a socket's path.
    [[nodiscard]] std::string_view rest() const { return text.substr(has_credentials() ? at + 1 : scheme); }
};

// The addresses of a comma-separated list. Once an address has shown an '@', its credentials run
// to the last '@' before the next ',' followed by a scheme ("…@h1:1,redis://…@h2:2" is two
// addresses); before any '@', such a ',' belongs to the credentials (a password holding
// ",redis://" is not cut). The host part after the credentials ends at the next ','.
std::vector<address> split_addresses(std::string_view url) {
    std::vector<address> addresses;
    for (std::size_t start = 0;;) {
        const std::string_view from = url.substr(start);
        address a;
        a.scheme = scheme_length(from);
        std::size_t host = a.scheme;
        if (const auto first_at = from.find('@', a.scheme); first_at != npos) {
            std::size_t limit = from.size();
            for (auto comma = from.find(',', first_at); comma != npos; comma = from.find(',', comma + 1))
                if (scheme_length(from.substr(comma + 1)) != 0) {
                    limit = comma;
                    break;
                }
            const std::string_view candidates = from.substr(0, limit);
            if (!from.starts_with("unix://")) {
                a.at = candidates.rfind('@');
            } else if (const auto path = candidates.rfind("@/"); path != npos) {
                a.at = path;
            } else if (!from.substr(a.scheme).starts_with('/')) {
                a.at = candidates.rfind('@');  // "unix://pw@relative": credentials, and a path refused
            }                                  // else "unix:///run/redis@7.sock": a path holding '@', no credentials
            if (a.has_credentials()) host = a.at + 1;
        }
        const auto comma = from.find(',', host);
        a.text = from.substr(0, comma);
        addresses.push_back(a);
        if (comma == npos) return addresses;
        start += comma + 1;
    }
}

// The address with its password masked ("redis://app:***@cache:6379"). Without credentials,
// what follows a ':' is a port, or the password of a "user:password" whose "@host" was left
// out: it is masked unless it is a port number.
std::string redacted(const address& a) {
    if (a.has_credentials()) {
        const std::string_view credentials = a.credentials();
        const auto colon = credentials.find(':');
        std::string shown(a.text.substr(0, a.scheme));
        if (colon != npos) shown += credentials.substr(0, colon + 1);  // the user
        return shown + std::string(masked) + std::string(a.text.substr(a.at));
    }
    const std::string_view rest = a.rest();
    if (a.is_unix() && rest.starts_with('/')) return std::string(a.text);
    std::size_t after_host = 0;  // past an IPv6 address's ']': its ':' are not a port's
    if (rest.starts_with('[')) {
        const auto close = rest.find(']');
        if (close != npos) after_host = close + 1;
    }
    const auto colon = rest.find(':', after_host);
    if (colon == npos) return std::string(a.text);
    const std::string_view port = rest.substr(colon + 1, rest.find('/', colon + 1) - (colon + 1));
    if (!port.empty() && std::all_of(port.begin(), port.end(), is_digit)) return std::string(a.text);
    return std::string(a.text.substr(0, a.text.size() - rest.size() + colon + 1)) + std::string(masked);
}

[[noreturn]] void bad(std::string_view shown, std::string_view why) {
    throw invalid_argument("bad Redis address '" + std::string(shown) + "': " + std::string(why) +
                           " (expected redis://[user:password@]host[:port][/db], unix://[user:password@]/path[?db=N] "
                           "or host:port)");
}
[[noreturn]] void bad(const address& a, std::string_view why) { bad(redacted(a), why); }

// A port or a database number. The text itself is not quoted: the address shown around it is
// (redacted), and a text that is not a number may be a password.
template <class Number>
Number parse_number(const address& a, std::string_view text, Number low, Number high, std::string_view what,
                    std::string_view hint = {}) {
    Number value{};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < low || value > high)
        bad(a, "the " + std::string(what) + " is not a number from " + std::to_string(low) + " to " +
                   std::to_string(high) + std::string(hint));
    return value;
}

std::uint16_t parse_port(const address& a, std::string_view text) {
    const bool masked_in_messages =
        !a.has_credentials() && (text.empty() || !std::all_of(text.begin(), text.end(), is_digit));
    return parse_number<std::uint16_t>(
        a, text, 1, 65535, "port",
        masked_in_messages ? " (masked: it may be a password whose '@host' is missing)" : "");
}

// "%40" and friends in a user name or password.
std::string percent_decoded(const address& a, std::string_view text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '%') {
            out += text[i];
            continue;
        }
        if (i + 2 >= text.size()) bad(a, "a '%' escape needs two hex digits");
        unsigned value = 0;
        const auto [end, ec] = std::from_chars(text.data() + i + 1, text.data() + i + 3, value, 16);
        if (ec != std::errc() || end != text.data() + i + 3) bad(a, "a '%' escape needs two hex digits");
        out += static_cast<char>(value);
        i += 2;
    }
    return out;
}

// user:password (or a password alone) into `e`.
void read_credentials(const address& a, endpoint& e) {
    const std::string_view credentials = a.credentials();
    const auto colon = credentials.find(':');
    if (colon == npos) {
        e.password = percent_decoded(a, credentials);  // redis://secret@host: a password alone
    } else {
        e.user = percent_decoded(a, credentials.substr(0, colon));
        e.password = percent_decoded(a, credentials.substr(colon + 1));
    }
}

endpoint parse_unix(const address& a) {
    endpoint e;
    if (a.has_credentials()) read_credentials(a, e);
    std::string_view rest = a.rest();
    if (const auto query = rest.find('?'); query != npos) {
        const std::string_view parameter = rest.substr(query + 1);
        if (!parameter.starts_with("db=")) bad(a, "the only parameter of a unix:// address is ?db=N");
        e.db = parse_number<int>(a, parameter.substr(3), 0, 1 << 20, "database");
        rest = rest.substr(0, query);
    }
    e.socket = std::string(rest);
    if (e.socket.empty() || e.socket[0] != '/') bad(a, "a Unix socket needs an absolute path");
    return e;
}

endpoint parse_one(const address& a) {
    if (a.is_unix()) return parse_unix(a);
    if (a.text.starts_with("rediss://")) bad(a, "TLS (rediss://) is not supported by Debian's hiredis 0.14");
    const bool redis_scheme = a.text.starts_with("redis://");
    if (!redis_scheme && (a.scheme != 0 || a.text.find("://") != npos)) bad(a, "unknown scheme");
    if (!redis_scheme && a.has_credentials())
        bad(a, "credentials need the redis:// form (redis://user:password@host:port)");
    endpoint e;
    if (a.has_credentials()) read_credentials(a, e);
    std::string_view rest = a.rest();
    if (redis_scheme) {
        if (const auto slash = rest.find('/'); slash != npos) {
            const std::string_view db = rest.substr(slash + 1);
            if (!db.empty()) e.db = parse_number<int>(a, db, 0, 1 << 20, "database");
            rest = rest.substr(0, slash);
        }
    }
    e.port = 6379;
    if (!rest.empty() && rest.front() == '[') {  // [::1]:6379
        const auto close = rest.find(']');
        if (close == npos) bad(a, "an IPv6 address needs its closing ']'");
        e.host = std::string(rest.substr(1, close - 1));
        rest.remove_prefix(close + 1);
        if (!rest.empty()) {
            if (rest.front() != ':') bad(a, "expected ':port' after the IPv6 address");
            e.port = parse_port(a, rest.substr(1));
        }
    } else {
        const auto colon = rest.rfind(':');
        e.host = std::string(rest.substr(0, colon));
        if (colon != npos) e.port = parse_port(a, rest.substr(colon + 1));
        if (e.host.find(':') != npos)
            bad(a, "more than one ':' (an IPv6 address goes in brackets, [::1]:6379; a password before an '@host')");
    }
    if (e.host.empty()) bad(a, "no host");
    return e;
}

}  // namespace

std::vector<endpoint> parse_url(std::string_view url) {
    std::vector<endpoint> endpoints;
    for (const address& a : split_addresses(url)) {
        if (a.text.empty()) bad(redacted_url(url), "an empty address");
        endpoints.push_back(parse_one(a));
    }
    return endpoints;
}

std::string redacted_url(std::string_view url) {
    std::string out;
    bool first = true;
    for (const address& a : split_addresses(url)) {
        if (!first) out += ',';
        out += redacted(a);
        first = false;
    }
    return out;
}

}  // namespace bloomkit::redis
