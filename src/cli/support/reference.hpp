// src/cli/support/reference.hpp — the command's reference for man(1) and the shells, generated
// from the same CLI11 description that `--help` prints: a man page for bloomkit and one for every
// subcommand (roff, man-pages(7) sections), and completions for bash, zsh and fish. Nothing is
// written by hand twice, so an option added to a subcommand is documented and completed at the
// next build. `bloomkit --generate-reference DIR` writes them (the build does, and the package
// installs them).
#pragma once

#include <CLI/CLI.hpp>

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace bloomkit::cli {

/// What the reference says that the CLI11 description does not.
struct reference_facts {
    std::string version;  ///< "0.3.0"
    /// The EXIT STATUS text of a top-level subcommand, by name ("" for bloomkit itself).
    std::function<std::string(std::string_view command)> exit_status;
};

/// One generated file: its name (bloomkit-dedup.1, bloomkit.bash...) and contents.
struct reference_file {
    std::string name;
    std::string text;
};

/// The man pages: bloomkit.1 and bloomkit-NAME.1 for every subcommand at any depth
/// (bloomkit-redis-add.1).
[[nodiscard]] std::vector<reference_file> man_pages(const CLI::App& root, const reference_facts& facts);

/// The completions: bloomkit.bash (for bash-completion's completions/ folder, or to source),
/// _bloomkit (zsh's fpath) and bloomkit.fish (fish's vendor_completions.d).
[[nodiscard]] std::vector<reference_file> completions(const CLI::App& root);

/// Writes the man pages to DIR/man1 and the completions to DIR/completions; throws io_error.
void write_reference(const CLI::App& root, const reference_facts& facts, const std::filesystem::path& dir);

}  // namespace bloomkit::cli
