// src/cli/support/reference.cpp — see reference.hpp. The CLI11 tree is first read into a plain
// description of each command (its options, arguments and subcommands), which the three writers
// (roff, bash, zsh, fish) then print; so what a writer shows is exactly what --help shows.
#include "support/reference.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <fstream>

#include "bloomkit/error.hpp"

namespace bloomkit::cli {
namespace {

struct option_doc {
    std::vector<std::string> flags;    ///< "-n", "--keys"; the name alone for an argument
    std::string value;                 ///< "N", "FILE"; empty for a flag
    std::vector<std::string> choices;  ///< the values an IsMember validator allows
    std::string description;
    bool many = false;  ///< an argument that takes several values
    bool required = false;
};

struct command_doc {
    std::vector<std::string> path;  ///< {"redis", "add"}
    std::string summary, footer;
    std::vector<option_doc> options, arguments;
    std::vector<command_doc> subcommands;

    [[nodiscard]] std::string words() const {  // "redis add"
        std::string out;
        for (const std::string& word : path) out += (out.empty() ? "" : " ") + word;
        return out;
    }
    [[nodiscard]] std::string page() const {  // "bloomkit-redis-add"
        std::string out = "bloomkit";
        for (const std::string& word : path) out += "-" + word;
        return out;
    }
};

/// "TEXT:{bloom,counting}" → value "TEXT", choices {bloom, counting}.
void read_type(const std::string& type, option_doc& doc) {
    const std::size_t colon = type.find(":{");
    doc.value = type.substr(0, colon);
    if (colon == std::string::npos || type.back() != '}') return;
    std::string list = type.substr(colon + 2, type.size() - colon - 3);
    for (std::size_t start = 0; start <= list.size();) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        if (comma > start) doc.choices.push_back(list.substr(start, comma - start));
        start = comma + 1;
    }
}

command_doc describe(const CLI::App& app, std::vector<std::string> path) {
    command_doc doc;
    doc.path = std::move(path);
    doc.summary = app.get_description();
    doc.footer = app.get_footer();
    for (const CLI::Option* option : app.get_options()) {
        if (option->get_group().empty()) continue;  // hidden
        option_doc o;
        o.description = option->get_description();
        o.required = option->get_required();
        if (option->get_positional() && option->get_lnames().empty() && option->get_snames().empty()) {
            o.flags = {option->get_name(true)};
            read_type(option->get_type_name(), o);
            o.many = option->get_items_expected_max() > 1;
            doc.arguments.push_back(std::move(o));
            continue;
        }
        for (const std::string& s : option->get_snames()) o.flags.push_back("-" + s);
        for (const std::string& l : option->get_lnames()) o.flags.push_back("--" + l);
        if (option->get_type_size_max() > 0) read_type(option->get_type_name(), o);
        doc.options.push_back(std::move(o));
    }
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
        std::vector<std::string> sub_path = doc.path;
        sub_path.push_back(sub->get_name());
        doc.subcommands.push_back(describe(*sub, std::move(sub_path)));
    }
    return doc;
}

template <class Visit>
void for_each_command(const command_doc& doc, Visit&& visit) {
    visit(doc);
    for (const command_doc& sub : doc.subcommands) for_each_command(sub, visit);
}

// --- roff (man-pages(7)) ---------------------------------------------------------------------

/// Text as roff prints it literally: backslashes and hyphens escaped (a hyphen in an option must
/// stay an ASCII minus for copy and search), no line starting with a control character.
std::string roff(std::string_view text) {
    std::string out;
    bool line_start = true;
    for (const char c : text) {
        if (line_start && (c == '.' || c == '\'')) out += "\\&";
        if (c == '\\') out += "\\e";
        else if (c == '-') out += "\\-";
        else out += c;
        line_start = c == '\n';
    }
    return out;
}

std::string bold(std::string_view text) { return "\\fB" + roff(text) + "\\fR"; }
std::string italic(std::string_view text) { return "\\fI" + roff(text) + "\\fR"; }

std::string option_heading(const option_doc& o) {
    std::string out;
    for (const std::string& flag : o.flags) out += (out.empty() ? "" : ", ") + bold(flag);
    if (!o.value.empty()) out += " " + italic(o.value);
    return out;
}

std::string described(const option_doc& o) {
    std::string out = roff(o.description);
    if (!o.choices.empty()) {
        out += (out.empty() ? "" : " ") + std::string("One of:");
        for (std::size_t i = 0; i < o.choices.size(); ++i) out += (i == 0 ? " " : ", ") + bold(o.choices[i]);
        out += ".";
    }
    return out;
}

std::string synopsis(const command_doc& doc) {
    std::string out = ".SY bloomkit\n";
    for (const std::string& word : doc.path) out += bold(word) + "\n";
    if (!doc.subcommands.empty()) out += italic("COMMAND") + "\n";
    if (!doc.options.empty()) out += ".RI [ OPTIONS ]\n";
    for (const option_doc& a : doc.arguments) {
        const std::string name = italic(a.flags.front()) + (a.many ? "\\&..." : "");
        out += a.required ? name + "\n" : "[" + name + "]\n";
    }
    return out + ".YS\n";
}

std::string man_page(const command_doc& doc, const command_doc& root, const reference_facts& facts) {
    std::string upper = doc.page();
    std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
    std::string out = fmt::format(
        ".\\\" Generated by bloomkit --generate-reference from the command's own description.\n"
        ".TH {} 1 \"\" \"bloomkit {}\" \"User Commands\"\n",
        upper, facts.version);
    out += ".SH NAME\n" + roff(doc.page()) + " \\- " + roff(doc.summary) + "\n";
    out += ".SH SYNOPSIS\n" + synopsis(doc);
    out += ".SH DESCRIPTION\n" + roff(doc.summary) + "\n";
    // The footer holds examples laid out in columns: printed as it is written.
    if (!doc.footer.empty() && doc.footer != "\n") out += ".PP\n.nf\n" + roff(doc.footer) + "\n.fi\n";
    if (!doc.subcommands.empty()) {
        out += ".SH COMMANDS\n";
        for (const command_doc& sub : doc.subcommands)
            out += ".TP\n" + bold(sub.path.back()) + "\n" + roff(sub.summary) + " See " + bold(sub.page()) + "(1).\n";
    }
    if (!doc.arguments.empty()) {
        out += ".SH ARGUMENTS\n";
        for (const option_doc& a : doc.arguments) out += ".TP\n" + italic(a.flags.front()) + "\n" + described(a) + "\n";
    }
    if (!doc.options.empty()) {
        out += ".SH OPTIONS\n";
        for (const option_doc& o : doc.options) out += ".TP\n" + option_heading(o) + "\n" + described(o) + "\n";
    }
    out += ".SH EXIT STATUS\n" + roff(facts.exit_status(doc.path.empty() ? "" : doc.path.front())) + "\n";
    out += ".SH SEE ALSO\n";
    std::vector<std::string> related;
    if (!doc.path.empty()) related.push_back("bloomkit");
    for_each_command(root, [&](const command_doc& other) {
        if (&other != &doc && !other.path.empty() && other.path.size() <= 2 &&
            (other.path.size() == 1 || other.path.front() == (doc.path.empty() ? "" : doc.path.front())))
            related.push_back(other.page());
    });
    for (std::size_t i = 0; i < related.size(); ++i)
        out += bold(related[i]) + "(1)" + (i + 1 < related.size() ? ",\n" : "\n");
    return out;
}

// --- Completions -------------------------------------------------------------------------------

std::vector<std::string> flags_of(const command_doc& doc) {
    std::vector<std::string> out;
    for (const option_doc& o : doc.options) out.insert(out.end(), o.flags.begin(), o.flags.end());
    return out;
}

std::string joined(const std::vector<std::string>& words, std::string_view separator = " ") {
    std::string out;
    for (const std::string& word : words) out += (out.empty() ? "" : std::string(separator)) + word;
    return out;
}

std::vector<std::string> subcommand_names(const command_doc& doc) {
    std::vector<std::string> out;
    for (const command_doc& sub : doc.subcommands) out.push_back(sub.path.back());
    return out;
}

/// Text inside single quotes, as bash, zsh and fish read it.
std::string shell_quoted(std::string_view text) {
    std::string out = "'";
    for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

/// The key the completion functions look an option up by: "redis add|--url" ("|--help" at the top).
std::string option_key(const command_doc& doc, std::string_view flag) { return doc.words() + "|" + std::string(flag); }

/// "<file>" for an option whose value is a file or free text, else its choices.
std::string value_of(const option_doc& o) { return o.choices.empty() ? "<file>" : joined(o.choices); }

/// The shell functions bash and zsh share (the same syntax in both): which words name a command,
/// and what an option takes — the two facts that find the command a cursor is in.
std::string shared_functions(const command_doc& root) {
    std::string values, words;
    for_each_command(root, [&](const command_doc& doc) {
        for (const option_doc& o : doc.options) {
            if (o.value.empty()) continue;
            for (const std::string& flag : o.flags)
                values +=
                    "        " + shell_quoted(option_key(doc, flag)) + ") echo " + shell_quoted(value_of(o)) + " ;;\n";
        }
        words += "        " + shell_quoted(doc.words()) + ") echo " +
                 shell_quoted(joined(subcommand_names(doc)) + " " + joined(flags_of(doc))) + " ;;\n";
    });
    return "# What option $2 of command $1 takes: its choices, or <file>; status 1 for a flag.\n"
           "_bloomkit_value() {\n    case \"$1|$2\" in\n" +
           values +
           "        *) return 1 ;;\n    esac\n}\n"
           "# The subcommands and options of command $1.\n"
           "_bloomkit_words() {\n    case \"$1\" in\n" +
           words +
           "    esac\n}\n"
           "# The command the words before the cursor select (\"redis add\"), skipping options' values.\n"
           "_bloomkit_path() {\n"
           "    local at= word skip=0\n"
           "    for word in \"$@\"; do\n"
           "        if ((skip)); then skip=0; continue; fi\n"
           "        if [[ $word == -* ]]; then\n"
           "            [[ $word != *=* ]] && _bloomkit_value \"$at\" \"$word\" >/dev/null && skip=1\n"
           "        elif [[ \" $(_bloomkit_words \"$at\") \" == *\" $word \"* ]]; then\n"
           "            at=${at:+$at }$word\n"
           "        fi\n"
           "    done\n"
           "    echo \"$at\"\n"
           "}\n";
}

std::string bash_completion(const command_doc& root) {
    return "# bash completion for bloomkit: generated by bloomkit --generate-reference from the command's\n"
           "# own description. Self-contained: sourced, or from bash-completion's completions folder.\n" +
           shared_functions(root) +
           R"sh(_bloomkit() {
    local current=${COMP_WORDS[COMP_CWORD]} previous=${COMP_WORDS[COMP_CWORD-1]} at value word
    at=$(_bloomkit_path "${COMP_WORDS[@]:1:COMP_CWORD-1}")
    if ((COMP_CWORD > 1)) && [[ $previous == -* ]] && value=$(_bloomkit_value "$at" "$previous"); then
        if [[ $value == '<file>' ]]; then COMPREPLY=($(compgen -f -- "$current")); else COMPREPLY=($(compgen -W "$value" -- "$current")); fi
        return
    fi
    local options= commands=
    for word in $(_bloomkit_words "$at"); do
        if [[ $word == -* ]]; then options+=" $word"; else commands+=" $word"; fi
    done
    if [[ $current == -* ]]; then
        COMPREPLY=($(compgen -W "$options" -- "$current"))
    elif [[ -n $commands ]]; then
        COMPREPLY=($(compgen -W "$commands" -- "$current"))
    else
        COMPREPLY=($(compgen -f -- "$current"))
    fi
}
complete -o filenames -F _bloomkit bloomkit
)sh";
}

/// "word:description" lines for zsh's _describe (a colon in the word escaped).
std::string described_words(const command_doc& root) {
    std::string cases;
    for_each_command(root, [&](const command_doc& doc) {
        std::string lines;
        for (const command_doc& sub : doc.subcommands) lines += sub.path.back() + ":" + sub.summary + "\n";
        for (const option_doc& o : doc.options)
            for (const std::string& flag : o.flags) lines += flag + ":" + o.description + "\n";
        if (!lines.empty()) lines.pop_back();
        cases += "        " + shell_quoted(doc.words()) + ") print -r -- " + shell_quoted(lines) + " ;;\n";
    });
    return "_bloomkit_described() {\n    case \"$1\" in\n" + cases + "    esac\n}\n";
}

std::string zsh_completion(const command_doc& root) {
    return "#compdef bloomkit\n"
           "# zsh completion for bloomkit: generated by bloomkit --generate-reference from the command's\n"
           "# own description. Install as _bloomkit in a folder of $fpath.\n" +
           shared_functions(root) + described_words(root) +
           R"sh(_bloomkit() {
    local at value previous=${words[CURRENT-1]}
    local -a items commands options
    at=$(_bloomkit_path "${(@)words[2,CURRENT-1]}")
    if ((CURRENT > 2)) && [[ $previous == -* ]] && value=$(_bloomkit_value "$at" "$previous"); then
        if [[ $value == '<file>' ]]; then _files; else compadd -- ${=value}; fi
        return
    fi
    items=("${(@f)$(_bloomkit_described "$at")}")
    options=(${(M)items:#-*})
    commands=(${items:#-*})
    if [[ ${words[CURRENT]} == -* ]]; then
        _describe -t options 'option' options
    elif ((${#commands})); then
        _describe -t commands 'command' commands
    else
        _files
    fi
}
_bloomkit "$@"
)sh";
}

std::string fish_completion(const command_doc& root) {
    std::string commands, valued, lines;
    for_each_command(root, [&](const command_doc& doc) {
        if (!doc.path.empty()) commands += " " + shell_quoted(doc.words());
        const std::string when = "-n " + shell_quoted("test \"$(__bloomkit_path)\" = " + shell_quoted(doc.words()));
        for (const command_doc& sub : doc.subcommands)
            lines += "complete -c bloomkit " + when + " -f -a " + shell_quoted(sub.path.back()) + " -d " +
                     shell_quoted(sub.summary) + "\n";
        for (const option_doc& o : doc.options) {
            std::string names;
            for (const std::string& flag : o.flags) {
                names += flag.starts_with("--") ? " -l " + shell_quoted(flag.substr(2))
                                                : " -s " + shell_quoted(flag.substr(1));
                if (!o.value.empty()) valued += " " + shell_quoted(option_key(doc, flag));
            }
            const std::string takes = o.value.empty()     ? ""
                                      : o.choices.empty() ? " -r"
                                                          : " -x -a " + shell_quoted(joined(o.choices));
            lines += "complete -c bloomkit " + when + names + takes + " -d " + shell_quoted(o.description) + "\n";
        }
    });
    return "# fish completion for bloomkit: generated by bloomkit --generate-reference from the command's\n"
           "# own description. Install in a vendor_completions.d folder.\n"
           "set -g __bloomkit_commands" +
           commands +
           "\n"
           "set -g __bloomkit_valued" +
           valued + "\n" +
           R"sh(# The command the words before the cursor select ("redis add"), skipping options' values.
function __bloomkit_path
    set -l path
    set -l skip 0
    for word in (commandline -opc)[2..-1]
        if test $skip = 1
            set skip 0
        else if string match -q -- '-*' $word
            contains -- (string join ' ' $path)"|$word" $__bloomkit_valued; and set skip 1
        else if contains -- (string join ' ' $path $word) $__bloomkit_commands
            set -a path $word
        end
    end
    string join ' ' $path
end
)sh" + lines;
}

}  // namespace

std::vector<reference_file> man_pages(const CLI::App& root, const reference_facts& facts) {
    const command_doc doc = describe(root, {});
    std::vector<reference_file> out;
    for_each_command(doc, [&](const command_doc& page) {
        out.push_back({page.page() + ".1", man_page(page, doc, facts)});
    });
    return out;
}

std::vector<reference_file> completions(const CLI::App& root) {
    const command_doc doc = describe(root, {});
    return {{"bloomkit.bash", bash_completion(doc)},
            {"_bloomkit", zsh_completion(doc)},
            {"bloomkit.fish", fish_completion(doc)}};
}

void write_reference(const CLI::App& root, const reference_facts& facts, const std::filesystem::path& dir) {
    const auto write_all = [](const std::filesystem::path& folder, const std::vector<reference_file>& files) {
        std::filesystem::create_directories(folder);
        for (const reference_file& file : files) {
            std::ofstream out(folder / file.name, std::ios::binary | std::ios::trunc);
            out << file.text;
            if (!out.flush()) throw error("cannot write " + (folder / file.name).string());
        }
    };
    write_all(dir / "man1", man_pages(root, facts));
    write_all(dir / "completions", completions(root));
}

}  // namespace bloomkit::cli
