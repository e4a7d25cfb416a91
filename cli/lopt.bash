# bash completion for lopt, installed by make install. Options come from
# lopt --help and pass names from lopt --list-passes, so this file does not
# go stale when lopt gains one.
_lopt()
{
    local cur=${COMP_WORDS[COMP_CWORD]}
    local prev=${COMP_WORDS[COMP_CWORD-1]}
    local lopt=${COMP_WORDS[0]}
    case $cur in
    --pass=*|--print-before=*|--print-after=*)
        local head=${cur%%=*}= list=${cur#*=}
        local done=${list%"${list##*,}"} last=${list##*,}
        local names
        names=$("$lopt" --list-passes 2>/dev/null | sed -n 's/^\([a-z-]*\).*/\1/p')
        COMPREPLY=($(compgen -P "$head$done" -W "$names" -- "$last"))
        compopt -o nospace 2>/dev/null
        return;;
    --emit=*) COMPREPLY=($(compgen -P --emit= -W "text dot" -- "${cur#*=}")); return;;
    --print-style=*) COMPREPLY=($(compgen -P --print-style= -W "canonical tvm" -- "${cur#*=}")); return;;
    --color=*) COMPREPLY=($(compgen -P --color= -W "auto always never" -- "${cur#*=}")); return;;
    --report=*|--stats-json=*|--constants=*|--output-dir=*)
        local head=${cur%%=*}=
        COMPREPLY=($(compgen -P "$head" -f -- "${cur#*=}"))
        return;;
    -*)
        local opts
        opts=$("$lopt" --help 2>/dev/null | sed -n 's/^  \(-[-a-zA-Z]*\).*/\1/p; s/^  -j N, \(--jobs\).*/\1/p')
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return;;
    esac
    case $prev in
    -o|--constants|--output-dir) COMPREPLY=($(compgen -f -- "$cur")); return;;
    esac
    COMPREPLY=($(compgen -f -X '!*.tir' -- "$cur") $(compgen -d -- "$cur"))
}
complete -F _lopt lopt
