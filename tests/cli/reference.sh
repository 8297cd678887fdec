#!/usr/bin/env bash
# tests/cli/reference.sh — the man pages and shell completions that `bloomkit --generate-reference`
# writes cover the command as its --help describes it: every subcommand (redis's too) has a page,
# and every option its --help lists is in that page and completed by bash, zsh and fish; the
# pages render without a warning from man, and say what the exit codes mean. The completions are
# run, not only read: bash's function is called on command lines, fish's through `complete -C`,
# zsh's syntax is checked (zsh and fish are optional: skipped, saying so, when missing).
source "$(dirname "$0")/lib.sh" "$@"

R=$T/reference
run "$B" --generate-reference "$R"
check_rc "generate_reference -> 0" 0

# The subcommands --help lists (two-level for redis), as "build", "redis add"...
commands_of() { "$B" $1 --help | awk '/^Subcommands:/ { on = 1; next } /^$/ { on = 0 } on && /^  [a-z]/ { print $1 }'; }
paths=()
for command in $(commands_of ""); do
    paths+=("$command")
    for sub in $(commands_of "$command"); do paths+=("$command $sub"); done
done
check_cond "help_lists_the_commands" "${paths[*]}" test ${#paths[@]} -ge 13

# The options --help lists for a command: every -x and --long-name at the start of an entry.
options_of() {
    "$B" $1 --help | awk '/^(Options|Positionals|Subcommands):/ { section = $1; next }
        section == "Options:" && /^  +-/ { n = split($1, names, ","); for (i = 1; i <= n; i++) print names[i] }'
}

fish_ok=0
command -v fish >/dev/null && fish_ok=1 || echo "# skipped: fish completions run (fish not installed)"
for path in "" "${paths[@]}"; do
    page="$R/man1/bloomkit${path:+-${path// /-}}.1"
    label="${path:-bloomkit}"
    check_cond "man_page_exists ($label)" "no $page" test -s "$page"
    check_cond "man_page_says_exit_status ($label)" "no EXIT STATUS" grep -q '^\.SH EXIT STATUS' "$page"
    if command -v man >/dev/null; then
        warnings=$(man --warnings -E UTF-8 -l "$page" 2>&1 >/dev/null)
        check_eq "man_page_renders_without_warnings ($label)" "" "$warnings"
    fi
    missing_man= missing_bash= missing_zsh= missing_fish=
    bash_words=" $(grep -F -- "    '$path') echo " "$R/completions/bloomkit.bash" | sed "s/.*echo '//; s/' ;;\$//") "
    for option in $(options_of "$path"); do
        grep -qF -- "\\fB${option//-/\\-}\\fR" "$page" || missing_man+=" $option"
        [[ $bash_words == *" $option "* ]] || missing_bash+=" $option"
        grep -qF -- "$option:" "$R/completions/_bloomkit" || missing_zsh+=" $option"
        if [[ $option == --* ]]; then
            grep -qF -- "-l '${option#--}'" "$R/completions/bloomkit.fish" || missing_fish+=" $option"
        else
            grep -qF -- "-s '${option#-}'" "$R/completions/bloomkit.fish" || missing_fish+=" $option"
        fi
    done
    check_eq "every_option_in_the_man_page ($label)" "" "$missing_man"
    check_eq "every_option_in_bash_completion ($label)" "" "$missing_bash"
    check_eq "every_option_in_zsh_completion ($label)" "" "$missing_zsh"
    check_eq "every_option_in_fish_completion ($label)" "" "$missing_fish"
done

# check_has NAME TEXT NEEDLE: TEXT contains NEEDLE.
check_has() { if [[ $2 == *"$3"* ]]; then pass "$1"; else fail "$1" "'$3' not in '${2:0:200}'"; fi; }

# bash: the completion function on command lines, as bash calls it.
complete_bash() {
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _bloomkit
             printf "%s\n" "${COMPREPLY[@]}"' _ "$R/completions/bloomkit.bash" bloomkit "$@"
}
check_eq "bash_completes_commands" "dedup" "$(complete_bash de)"
check_has "bash_completes_an_option" "$(complete_bash dedup --mem)" "--memory"
check_has "bash_completes_redis_subcommands" "$(complete_bash redis "" | tr '\n' ' ')" "create add check info push pull load dump drop"
check_has "bash_completes_after_an_option_value" "$(complete_bash build -o out.bkf --fo)" "--format"
check_has "bash_completes_a_file_after_an_option" "$(cd "$R" && complete_bash build -o comp)" "completions"

if ((fish_ok)); then
    fish_complete() { fish -c "source '$R/completions/bloomkit.fish'; complete -C '$1'" | cut -f1; }
    check_has "fish_completes_an_option" "$(fish_complete 'bloomkit dedup --mem')" "--memory"
    check_has "fish_completes_redis_subcommands" "$(fish_complete 'bloomkit redis ' | tr '\n' ' ')" "add"
fi
if command -v zsh >/dev/null; then
    check_cond "zsh_completion_parses" "$(zsh -n "$R/completions/_bloomkit" 2>&1)" zsh -n "$R/completions/_bloomkit"
else
    echo "# skipped: zsh completion syntax (zsh not installed)"
fi
finish
