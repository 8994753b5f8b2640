# bash completion for gcscope(1).
#
# Installed as share/bash-completion/completions/gcscope (make install);
# or source it from ~/.bashrc. It asks the gcscope being completed for its
# commands (`gcscope help`) and each command's options and operands
# (`gcscope help CMD`, printed from the tables the parser uses), so it
# knows exactly the options of that build. What a value completes to
# follows the value's name in the usage: a|b|c the choices, FILE a trace
# (*.nettrace, *.netperf) or folder, PATH any file, PID the .NET processes
# `gcscope ps` lists.

# The usage of CMD (or the command list when CMD is empty), asked once per
# gcscope binary and command.
declare -gA _gcscope_usage_cache
_gcscope_usage()
{
    local exe=$1 cmd=$2 key="$1|$2"
    if [[ -z ${_gcscope_usage_cache[$key]+set} ]]; then
        _gcscope_usage_cache[$key]=$("$exe" help ${cmd:+"$cmd"} 2>/dev/null)
    fi
    printf '%s\n' "${_gcscope_usage_cache[$key]}"
}

# The command names: the lines under "commands:" of `gcscope help`.
_gcscope_commands()
{
    _gcscope_usage "$1" "" | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }'
}

# One line per option of CMD: "NAME VALUE" (VALUE empty for a flag), the
# letter form too ("-o FILE"). Usage lines look like
# "  -o, --output FILE   help" and "      --rows   help".
_gcscope_options()
{
    _gcscope_usage "$1" "$2" | awk '
        /^  (-[A-Za-z], |    )--[a-z]/ {
            line = substr($0, 3)
            letter = ""
            if (line ~ /^-[A-Za-z], /) { letter = substr(line, 1, 2); line = substr(line, 5) }
            else line = substr(line, 5)
            n = index(line, " "); name = n ? substr(line, 1, n - 1) : line
            value = ""
            if (n && substr(line, n + 1, 1) != " ") {
                value = substr(line, n + 1); m = index(value, " ")
                if (m) value = substr(value, 1, m - 1)
            }
            print name " " value
            if (letter != "") print letter " " value
        }'
}

# The first operand's name in CMD's synopsis ("TRACE", "PID", "[COMMAND]").
_gcscope_operand()
{
    _gcscope_usage "$1" "$2" | sed -n '1s/^usage: gcscope [a-z]* \[options\] *\([^ ]*\).*/\1/p' | tr -d '[]'
}

# Completes a value or operand named KIND.
_gcscope_complete_kind()
{
    local exe=$1 kind=$2 cur=$3
    case $kind in
    'PID|NAME')
        # a process of the trace, by id or name: nothing to offer
        COMPREPLY=() ;;
    *'|'*)
        COMPREPLY=($(compgen -W "${kind//|/ }" -- "$cur")) ;;
    PID)
        COMPREPLY=($(compgen -W "$("$exe" ps 2>/dev/null | awk 'NR > 1 { print $1 }')" -- "$cur")) ;;
    COMMAND)
        COMPREPLY=($(compgen -W "$(_gcscope_commands "$exe")" -- "$cur")) ;;
    TRACE|TRACE...|FILE|FILE.*|BASE|NEW)
        compopt -o filenames 2>/dev/null
        local IFS=$'\n'
        COMPREPLY=($(compgen -f -X '!*.nettrace' -- "$cur"; compgen -f -X '!*.netperf' -- "$cur";
                     compgen -f -X '!*.zip' -- "$cur"; compgen -f -X '!*.gz' -- "$cur";
                     compgen -f -X '!*.xz' -- "$cur"; compgen -f -X '!*.zst' -- "$cur";
                     compgen -f -X '!*.gcprof' -- "$cur";
                     compgen -d -- "$cur")) ;;
    PATH)
        compopt -o filenames 2>/dev/null
        local IFS=$'\n'
        COMPREPLY=($(compgen -f -- "$cur")) ;;
    *)
        COMPREPLY=() ;; # a number, a spec: nothing to offer
    esac
}

_gcscope()
{
    local exe=${COMP_WORDS[0]} cword=$COMP_CWORD
    local cur=${COMP_WORDS[cword]} prev=${COMP_WORDS[cword - 1]}
    COMPREPLY=()
    # "--format=js": bash splits at "=" (COMP_WORDBREAKS).
    if [[ $cur == = ]]; then
        cur=
    elif [[ $prev == = ]] && ((cword >= 2)); then
        prev=${COMP_WORDS[cword - 2]}
    fi
    if ((cword == 1)); then
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W '--help -h --version -V' -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$(_gcscope_commands "$exe")" -- "$cur"))
        fi
        return
    fi
    local cmd=${COMP_WORDS[1]} opts
    # profile: after "--" come the program to run (a command) and its own
    # arguments (files).
    if [[ $cmd == profile ]]; then
        local i
        for ((i = 2; i < cword; i++)); do
            [[ ${COMP_WORDS[i]} == -- ]] || continue
            if ((i == cword - 1)); then
                COMPREPLY=($(compgen -c -- "$cur"))
            else
                compopt -o filenames 2>/dev/null
                local IFS=$'\n'
                COMPREPLY=($(compgen -f -- "$cur"))
            fi
            return
        done
    fi
    opts=$(_gcscope_options "$exe" "$cmd")
    [[ -n $opts ]] || return
    # The value of the option before the cursor.
    if [[ $prev == -* ]]; then
        local kind
        kind=$(awk -v o="$prev" '$1 == o { print $2; exit }' <<<"$opts")
        if [[ -n $kind ]]; then
            _gcscope_complete_kind "$exe" "$kind" "$cur"
            return
        fi
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(awk '$1 ~ /^--/ { print $1 }' <<<"$opts")" -- "$cur"))
        return
    fi
    _gcscope_complete_kind "$exe" "$(_gcscope_operand "$exe" "$cmd")" "$cur"
}

complete -F _gcscope gcscope
