# impactsweep.bash: bash completion for impactsweep (installed as
# share/bash-completion/completions/impactsweep): commands, each command's options, job
# and result files, model names, a model's parameter names as NAME= (read from
# `impactsweep models`, so plug-ins on IMPACTSWEEP_MODEL_PATH are completed too), a result
# file's axes after `trace FILE.h5`, --set's keys (the job's model's), rank counts.

_impactsweep_models() {
    "${COMP_WORDS[0]}" models 2>/dev/null | sed -n 's/^\([A-Za-z0-9_.-]*\): .*/\1/p'
}

_impactsweep_params() {
    "${COMP_WORDS[0]}" models "$1" 2>/dev/null |
        awk '/^  parameters:/ { on = 1; next } /^  [a-z]/ { on = 0 } on && NF { print $1 "=" }'
}

# the axes of a result file, as NAME= (from `impactsweep info`)
_impactsweep_axes() {
    "${COMP_WORDS[0]}" info "$1" 2>/dev/null |
        awk '/^axes:/ { on = 1; next } /^[a-z]/ { on = 0 } on && NF { print $1 "=" }'
}

# --set's keys: [sweep] keys, and for the job file on the line its model's parameters as
# model.NAME= and axis.NAME.from= ... (the [sweep] keys as the message of an unknown one
# lists them)
_impactsweep_set_keys() {
    local job="" word model
    for word in "${COMP_WORDS[@]}"; do
        [[ $word == *.ini && -r $word ]] && job=$word
    done
    "${COMP_WORDS[0]}" run /dev/null --dry-run --set sweep.model=chatter --set sweep.zz=1 2>&1 |
        sed -n 's/.*unknown key[^(]*(known: \([^)]*\)).*/\1/p' | tr -d ',' |
        tr ' ' '\n' | sed -n 's/^\([a-z_]*\)$/sweep.\1=/p'
    [ -n "$job" ] || return
    model=$(awk -F= '/^[[:space:]]*\[/ { s = $0; gsub(/[][[:space:]]/, "", s) }
                     s == "sweep" && $1 ~ /^[[:space:]]*model[[:space:]]*$/ {
                         v = $2; gsub(/^[[:space:]]+|[[:space:]]*([;#].*)?$/, "", v); print v; exit }' "$job")
    [ -n "$model" ] || return
    _impactsweep_params "$model" | while read -r param; do
        echo "model.$param"
        for key in from to count scale values; do echo "axis.${param%=}.$key="; done
    done
}

# rank counts: 1, 2, 4, ... up to twice the cores, and the cores
_impactsweep_ranks() {
    local cores n=1
    cores=$(nproc 2>/dev/null || echo 1)
    while [ "$n" -le $((2 * cores)) ]; do echo "$n"; n=$((2 * n)); done
    echo "$cores"
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
        COMPREPLY=($(compgen -W "run eval trace models info merge fit version help --help --version" -- "$cur"))
        return
    fi
    case $prev in
        --output | -o) _impactsweep_files h5; compopt -o nospace 2>/dev/null; return ;;
        --progress) COMPREPLY=($(compgen -W "bar lines" -- "$cur")); return ;;
        --set | -s)
            COMPREPLY=($(compgen -W "$(_impactsweep_set_keys)" -- "$cur"))
            compopt -o nospace 2>/dev/null
            return ;;
        -n | --ranks | --pieces) COMPREPLY=($(compgen -W "$(_impactsweep_ranks | sort -nu)" -- "$cur")); return ;;
        --piece | --max-samples | --window | --drop | --timeout) return ;;
    esac
    local options
    case $command in
        run) options="--set --output --piece --pieces --resume --overwrite --progress --quiet --dry-run --strict -n --help" ;;
        eval) options="-n --timeout --help" ;;
        trace) options="--output --overwrite --max-samples --window --nearest --drop --help" ;;
        models) options="--json --check --timeout --help" ;;
        info) options="--log --verify --help" ;;
        merge) options="--overwrite --help" ;;
        fit) options="--help" ;;
        help) options="--man --man-job --reference" ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$options" -- "$cur"))
        return
    fi
    case $command in
        run | fit) _impactsweep_files ini; compopt -o nospace 2>/dev/null ;;
        info | merge) _impactsweep_files h5; compopt -o nospace 2>/dev/null ;;
        help) COMPREPLY=($(compgen -W "run eval trace models info merge fit version help" -- "$cur")) ;;
        models) COMPREPLY=($(compgen -W "$(_impactsweep_models)" -- "$cur")) ;;
        eval | trace)
            if [ "$COMP_CWORD" -eq 2 ]; then
                COMPREPLY=($(compgen -W "$(_impactsweep_models)" -- "$cur"))
                [ "$command" = trace ] && _impactsweep_files h5
            elif [[ $command == trace && ${COMP_WORDS[2]} == *.h5 ]]; then
                COMPREPLY=($(compgen -W "$(_impactsweep_axes "${COMP_WORDS[2]}")" -- "$cur"))
            else
                COMPREPLY=($(compgen -W "$(_impactsweep_params "${COMP_WORDS[2]}")" -- "$cur"))
            fi
            compopt -o nospace 2>/dev/null ;;
    esac
}
complete -F _impactsweep impactsweep
