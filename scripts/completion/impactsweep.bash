# impactsweep.bash: bash completion for impactsweep (installed as
# share/bash-completion/completions/impactsweep): commands, each command's options, job
# and result files, model names, and a model's parameter names as NAME= (read from
# `impactsweep models`, so plug-ins on IMPACTSWEEP_MODEL_PATH are completed too).

_impactsweep_models() {
    "${COMP_WORDS[0]}" models 2>/dev/null | sed -n 's/^\([A-Za-z0-9_.-]*\): .*/\1/p'
}

_impactsweep_params() {
    "${COMP_WORDS[0]}" models "$1" 2>/dev/null |
        awk '/^  parameters:/ { on = 1; next } /^  [a-z]/ { on = 0 } on && NF { print $1 "=" }'
}

_impactsweep_files() {
    local IFS=$'\n'
    COMPREPLY+=($(compgen -f -X "!*.$1" -- "$cur") $(compgen -d -S / -- "$cur"))
}

_impactsweep() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
    local command=${COMP_WORDS[1]}
    COMPREPLY=()
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "run eval trace models info merge version help --help --version" -- "$cur"))
        return
    fi
    case $prev in
        --output | -o) _impactsweep_files h5; compopt -o nospace 2>/dev/null; return ;;
        --progress) COMPREPLY=($(compgen -W "bar lines" -- "$cur")); return ;;
        --set | -s | --piece | --pieces | -n | --ranks | --max-samples | --drop | --timeout) return ;;
    esac
    local options
    case $command in
        run) options="--set --output --piece --pieces --resume --overwrite --progress --quiet --dry-run --strict -n --help" ;;
        eval) options="--timeout --help" ;;
        trace) options="--output --overwrite --max-samples --nearest --drop --help" ;;
        models) options="--check --timeout --help" ;;
        info) options="--log --verify --help" ;;
        merge) options="--overwrite --help" ;;
        help) options="--man" ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$options" -- "$cur"))
        return
    fi
    case $command in
        run) _impactsweep_files ini; compopt -o nospace 2>/dev/null ;;
        info | merge) _impactsweep_files h5; compopt -o nospace 2>/dev/null ;;
        help) COMPREPLY=($(compgen -W "run eval trace models info merge version help" -- "$cur")) ;;
        models) COMPREPLY=($(compgen -W "$(_impactsweep_models)" -- "$cur")) ;;
        eval | trace)
            if [ "$COMP_CWORD" -eq 2 ]; then
                COMPREPLY=($(compgen -W "$(_impactsweep_models)" -- "$cur"))
                [ "$command" = trace ] && _impactsweep_files h5
            else
                COMPREPLY=($(compgen -W "$(_impactsweep_params "${COMP_WORDS[2]}")" -- "$cur"))
            fi
            compopt -o nospace 2>/dev/null ;;
    esac
}
complete -F _impactsweep impactsweep
