// bloomkit build [--kind K] [-n N] [-p P] [--layout L] [--bits B] [--arity A] [--seed S]
//                -o FILE [INPUT...|-] — a filter from lines.
//
// Without -n the input is counted first (stdin is spooled to a temporary file so it can be read
// twice): the filter is sized for the lines it will hold, duplicates included, never guessed.
// A scalable filter needs no count: without -n it starts small and grows. A binary fuse filter
// is built from the complete set: every line is read first, then the filter.
#include <fcntl.h>
#include <fmt/core.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "command.hpp"
#include "filters.hpp"

namespace bloomkit::cli {
namespace {

struct build_options {
    std::string keys;
    std::string fpp = "0.01";
    std::string kind = "bloom";
    std::string layout;
    std::string bits;   // empty: not given
    std::string arity;
    std::string seed = "0";
    std::string output;
    std::vector<std::string> inputs;
    unsigned threads = 0;
};

/// The initial capacity of a scalable filter built without -n: small enough to cost little,
/// large enough that a big input needs few stages.
constexpr std::uint64_t default_scalable_capacity = 100'000;

kind_spec parse_kind_spec(const build_options& options) {
    kind_spec spec;
    const std::string& k = options.kind;
    if (k == "bloom") spec.kind = filter_kind::bloom;
    else if (k == "counting") spec.kind = filter_kind::counting_bloom;
    else if (k == "cuckoo") spec.kind = filter_kind::cuckoo;
    else if (k == "scalable") spec.kind = filter_kind::scalable_bloom;
    else if (k == "fuse") spec.kind = filter_kind::binary_fuse;
    else throw invalid_argument(fmt::format("unknown kind '{}': choose bloom, counting, cuckoo, scalable or fuse", k));
    if (!options.layout.empty()) {
        if (spec.kind != filter_kind::bloom) throw invalid_argument("--layout applies to --kind bloom only");
        spec.layout = parse_layout(options.layout);
    }
    if (!options.bits.empty()) {
        const bool cuckoo = spec.kind == filter_kind::cuckoo, fuse = spec.kind == filter_kind::binary_fuse;
        if (!cuckoo && !fuse) throw invalid_argument("--bits (fingerprint bits) applies to --kind cuckoo and --kind fuse only");
        const std::string& b = options.bits;
        if (!(b == "8" || b == "16" || (cuckoo && b == "12")))
            throw invalid_argument(fmt::format("--bits for a {} filter is {}, not '{}'", cuckoo ? "cuckoo" : "binary fuse",
                                               cuckoo ? "8, 12 or 16" : "8 or 16", b));
        spec.bits = static_cast<unsigned>(std::stoul(b));
    }
    if (!options.arity.empty()) {
        if (spec.kind != filter_kind::binary_fuse || (options.arity != "3" && options.arity != "4"))
            throw invalid_argument(fmt::format("--arity is 3 or 4, for --kind fuse only (got '{}')", options.arity));
        spec.arity = options.arity == "4" ? 4 : 3;
    }
    return spec;
}

/// Standard input copied to an unlinked temporary file, so it can be counted and then read.
class spooled_stdin {
public:
    spooled_stdin() {
        const char* tmp = std::getenv("TMPDIR");
        std::string name = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/bloomkit-stdin-XXXXXX";
        fd_ = ::mkstemp(name.data());
        if (fd_ < 0) throw io_error("cannot create a temporary file for standard input", {errno, std::generic_category()});
        ::unlink(name.c_str());
        char buffer[1 << 16];
        for (;;) {
            const ::ssize_t got = ::read(STDIN_FILENO, buffer, sizeof buffer);
            if (got == 0) break;
            if (got < 0) {
                if (errno == EINTR) continue;
                throw io_error("cannot read standard input", {errno, std::generic_category()});
            }
            for (::ssize_t done = 0; done < got;) {
                const ::ssize_t put = ::write(fd_, buffer + done, static_cast<std::size_t>(got - done));
                if (put < 0) throw io_error("cannot spool standard input to a temporary file", {errno, std::generic_category()});
                done += put;
            }
        }
    }
    ~spooled_stdin() { ::close(fd_); }
    spooled_stdin(const spooled_stdin&) = delete;
    spooled_stdin& operator=(const spooled_stdin&) = delete;
    /// A path that reopens the spooled copy from the start.
    [[nodiscard]] std::string path() const { return "/dev/fd/" + std::to_string(fd_); }

private:
    int fd_ = -1;
};

/// Lines in the inputs (a last line without '\n' counts).
std::uint64_t count_lines(const std::vector<std::string>& inputs) {
    std::uint64_t lines = 0;
    line_reader reader(inputs);
    std::vector<char> spare;  // one buffer for the whole pass, as line_reader::read does
    reader.read_blocks(
        [&](line_block&& block) {
            const std::string_view text = block.text();
            lines += static_cast<std::uint64_t>(std::count(text.begin(), text.end(), '\n'));
            if (!text.empty() && text.back() != '\n') ++lines;
            spare = std::move(block.buffer);
        },
        [&] { return std::move(spare); });
    return lines;
}

int run_build(const build_options& options) {
    const kind_spec spec = parse_kind_spec(options);
    const double p = parse_probability("-p", options.fpp);
    const std::uint64_t seed = parse_seed(options.seed);
    const filter_options hashing{.seed = seed};

    // Inputs that can be read twice: stdin is spooled when the lines must be counted first.
    std::vector<std::string> inputs = options.inputs.empty() ? std::vector<std::string>{"-"} : options.inputs;
    const bool must_count = options.keys.empty() && spec.kind != filter_kind::scalable_bloom && spec.kind != filter_kind::binary_fuse;
    std::optional<spooled_stdin> spool;
    line_reader check_inputs(inputs);  // a missing file is reported before anything else happens
    if (must_count && std::find(inputs.begin(), inputs.end(), "-") != inputs.end()) {
        spool.emplace();
        std::replace(inputs.begin(), inputs.end(), std::string("-"), spool->path());
    }
    std::uint64_t n = 0;
    if (!options.keys.empty()) n = parse_key_count("-n", options.keys);
    else if (spec.kind == filter_kind::scalable_bloom) n = default_scalable_capacity;
    else if (must_count) n = std::max<std::uint64_t>(1, count_lines(inputs));

    line_reader lines(inputs);
    any_filter filter = [&] {
        if (spec.kind != filter_kind::binary_fuse) {
            any_filter made = make_filter(spec, n, p, hashing);
            insert_lines(made, lines, options.threads);
            return made;
        }
        // A static filter: every key first (the blocks own the bytes the views point into).
        kind_spec fuse = spec;
        if (fuse.bits == 0) fuse.bits = p >= 1.0 / 256 ? 8 : 16;
        if (p < 1.0 / 65536 && spec.bits == 0)
            throw invalid_argument(fmt::format("a binary fuse filter reaches at best p = 1/65536 (16-bit fingerprints), not {}", p));
        std::vector<line_block> blocks;
        std::vector<std::string_view> keys;
        lines.read_blocks([&](line_block&& block) { blocks.push_back(std::move(block)); });
        for (const line_block& block : blocks) split_lines(block.text(), keys);
        return build_fuse(fuse, keys, hashing);
    }();
    save(filter, options.output);  // atomic: on any failure no partial file is left behind
    warn_if_overfull(filter);
    return success;
}

}  // namespace

action add_build_command(CLI::App& app) {
    auto options = std::make_shared<build_options>();
    CLI::App* build = app.add_subcommand("build", "Build a filter from lines (one key per line) of files or stdin");
    build->add_option("--kind", options->kind,
                      "bloom (default), counting (deletes), cuckoo (deletes, small), scalable (grows) or fuse (static, smallest)")
        ->capture_default_str();
    build->add_option("-n,--keys", options->keys,
                      "Keys the filter is sized for (e.g. 1e6); default: count the input (scalable: start at 100000 and grow)");
    build->add_option("-p,--fpp", options->fpp, "Target false-positive rate at that many keys")->capture_default_str();
    build->add_option("--layout", options->layout, "For --kind bloom: block (default), classic or split-block");
    build->add_option("--bits", options->bits, "Fingerprint bits: cuckoo 8, 12 or 16; fuse 8 or 16 (default: from -p)");
    build->add_option("--arity", options->arity, "For --kind fuse: 3 (default) or 4 (smaller, slower to build)");
    build->add_option("--seed", options->seed, "Hash seed: a number, or 'random' against adversarial keys")
        ->capture_default_str();
    build->add_option("-o,--output", options->output, "Filter file to write (replaced atomically)")->required();
    build->add_option("inputs", options->inputs, "Input files; '-' or none reads stdin");
    build->add_option("-t,--threads", options->threads, "Threads hashing and inserting (0: one per core)")->capture_default_str();
    return [options] { return run_build(*options); };
}

}  // namespace bloomkit::cli
