// src/redis/connection.cpp — see connection.hpp.
#include "connection.hpp"

#include <pthread.h>
#include <signal.h>
#include <sys/time.h>

#include <cerrno>
#include <cstring>
#include <iterator>

#include <fmt/format.h>

namespace bloomkit::redis::detail {
namespace {

timeval to_timeval(std::chrono::milliseconds ms) {
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
    return tv;
}

// A one-off command (AUTH, SELECT) in RESP. (Through fmt: GCC 12 at -O3 warns falsely about
// the std::string appends this would otherwise take, -Wrestrict and -Warray-bounds.)
std::string encode(std::initializer_list<std::string_view> arguments) {
    fmt::memory_buffer resp;
    fmt::format_to(std::back_inserter(resp), "*{}\r\n", arguments.size());
    for (const std::string_view argument : arguments)
        fmt::format_to(std::back_inserter(resp), "${}\r\n{}\r\n", argument.size(), argument);
    return fmt::to_string(resp);
}

// Writing to a server that has gone away raises SIGPIPE, whose default action kills the
// process, and hiredis 0.14 writes with write(2), without MSG_NOSIGNAL. A library must not
// change the process's signal handling, so SIGPIPE is blocked in this thread while it writes,
// and one that the write raised is taken back before the old mask returns: the write fails
// with EPIPE instead, reported as a lost connection. (The scheme of libcurl and OpenSSL's users.)
class sigpipe_blocked {
public:
    sigpipe_blocked() noexcept {
        sigemptyset(&pipe_);
        sigaddset(&pipe_, SIGPIPE);
        sigset_t pending;
        sigpending(&pending);
        already_pending_ = sigismember(&pending, SIGPIPE) == 1;
        pthread_sigmask(SIG_BLOCK, &pipe_, &previous_);
    }
    ~sigpipe_blocked() {
        if (!already_pending_) {
            sigset_t pending;
            sigpending(&pending);
            if (sigismember(&pending, SIGPIPE) == 1) {
                const timespec now{};
                while (sigtimedwait(&pipe_, nullptr, &now) == -1 && errno == EINTR) {}
            }
        }
        pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
    }
    sigpipe_blocked(const sigpipe_blocked&) = delete;
    sigpipe_blocked& operator=(const sigpipe_blocked&) = delete;

private:
    sigset_t pipe_{}, previous_{};
    bool already_pending_ = false;
};

// A server's refusal of AUTH, fit for a message. One that does not know AUTH (renamed away, or
// a proxy) quotes the arguments it was given, the password among them: such a reply is cut to
// its error code.
std::string shown_refusal(std::string_view text, std::string_view password) {
    if (text.find(password) == std::string_view::npos) return std::string(text);
    const std::string_view code = text.substr(0, text.find(' '));
    if (code.find(password) != std::string_view::npos) return "its reply is not shown: it quotes the password";
    return std::string(code) + " (the rest of its reply is not shown: it quotes the password)";
}

}  // namespace

std::string address_of(const endpoint& e) {
    return e.socket.empty() ? e.host + ":" + std::to_string(e.port) : e.socket;
}

std::string reply_text(const redisReply& r) {
    switch (r.type) {
        case REDIS_REPLY_STRING:
        case REDIS_REPLY_STATUS:
        case REDIS_REPLY_ERROR: return std::string(r.str, r.len);
        case REDIS_REPLY_INTEGER: return std::to_string(r.integer);
        case REDIS_REPLY_ARRAY: {
            std::string text;
            for (std::size_t i = 0; i < r.elements; ++i) {
                if (i != 0) text.push_back('\n');
                text.append(reply_text(*r.element[i]));
            }
            return text;
        }
        default: return {};
    }
}

connection::connection(const endpoint& to, const connection_options& options)
    : address_(address_of(to)), timeout_(options.command_timeout) {
    const timeval connect = to_timeval(options.connect_timeout);
    context_.reset(to.socket.empty() ? redisConnectWithTimeout(to.host.c_str(), to.port, connect)
                                     : redisConnectUnixWithTimeout(to.socket.c_str(), connect));
    if (!context_) throw connection_error("cannot connect to Redis at " + address_ + ": out of memory");
    if (context_->err) fail("cannot connect to Redis at");
    set_timeout(timeout_);
    if (to.socket.empty()) redisEnableKeepAlive(context_.get());

    const std::string& user = to.user.empty() ? options.user : to.user;
    const std::string& password = to.password.empty() && to.user.empty() ? options.password : to.password;
    if (!password.empty()) {
        const reply r = call(user.empty() ? encode({"AUTH", password}) : encode({"AUTH", user, password}));
        if (r->type == REDIS_REPLY_ERROR)
            throw server_error("Redis at " + address_ + " refused the credentials" +
                               (user.empty() ? std::string() : " of user '" + user + "'") + ": " +
                               shown_refusal(error_text(*r), password));
    }
    if (to.db != 0) {
        const reply r = call(encode({"SELECT", std::to_string(to.db)}));
        if (r->type == REDIS_REPLY_ERROR)
            throw server_error("Redis at " + address_ + " refused database " + std::to_string(to.db) + ": " +
                               std::string(error_text(*r)));
    }
}

void connection::fail(std::string_view doing) {
    std::string what = std::string(doing) + " " + address_ + ": ";
    const bool timed_out = context_->err == REDIS_ERR_IO && (errno == EAGAIN || errno == EWOULDBLOCK ||
                                                             std::strcmp(context_->errstr, std::strerror(EAGAIN)) == 0);
    if (timed_out) what += "no reply within " + std::to_string(timeout_.count()) + " ms";
    else if (context_->err == REDIS_ERR_EOF) what += "the server closed the connection";
    else what += context_->errstr;
    throw connection_error(what);
}

void connection::append(std::string_view resp) {
    if (redisAppendFormattedCommand(context_.get(), resp.data(), resp.size()) != REDIS_OK) fail("cannot send to");
}

void connection::flush() {
    const sigpipe_blocked quiet;
    int done = 0;
    while (!done)
        if (redisBufferWrite(context_.get(), &done) != REDIS_OK) fail("lost the connection to");
}

reply connection::read() {
    void* r = nullptr;
    if (redisGetReply(context_.get(), &r) != REDIS_OK || r == nullptr) fail("lost the connection to");
    return reply(static_cast<redisReply*>(r));
}

reply connection::read_after(std::chrono::milliseconds delay) {
    set_timeout(timeout_ + delay);
    reply r = read();
    set_timeout(timeout_);
    return r;
}

void connection::set_timeout(std::chrono::milliseconds timeout) {
    if (redisSetTimeout(context_.get(), to_timeval(timeout)) != REDIS_OK) fail("cannot set a timeout on");
}

reply connection::call(std::string_view resp) {
    append(resp);
    flush();
    return read();
}

}  // namespace bloomkit::redis::detail
