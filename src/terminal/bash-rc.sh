# lembas shell integration for bash, read as `bash --rcfile <this> -i` in place of ~/.bashrc.
# bash runs as an interactive non-login shell so that it reads this file; the file reads the
# login files as `bash -l` would, then marks prompts (OSC 133) and the directory (OSC 7).
# What it leaves behind is functions named __lembas_* (and a flag variable while a command runs).

# The login files. bash has read /etc/bash.bashrc already (it does so before any rcfile), so
# /etc/profile is read with PS1 unset: Debian's reads /etc/bash.bashrc again when PS1 is set.
if [ -r /etc/profile ]; then
  if [ -n "${PS1+x}" ]; then __lembas_ps1=$PS1; unset PS1; fi
  . /etc/profile
  if [ -n "${__lembas_ps1+x}" ]; then
    [ -n "${PS1+x}" ] || PS1=$__lembas_ps1
    unset __lembas_ps1
  fi
fi
if [ -r ~/.bash_profile ]; then
  . ~/.bash_profile
elif [ -r ~/.bash_login ]; then
  . ~/.bash_login
elif [ -r ~/.profile ]; then
  . ~/.profile
fi

# `logout` works in a login shell only; this one is one in all but name.
if ! declare -F logout >/dev/null; then
  logout() { exit "$@"; }
fi

# ~/.bash_logout on leaving, as a login shell reads it: on exit, logout and end of input, before the
# person's own EXIT trap, which is kept. (Unlike a login shell, also when hung up: bash tells an
# EXIT trap nothing of why it exits.)
__lembas_status() { return "$1"; }
eval "__lembas_t=($(trap -p EXIT))"
eval "__lembas_exit_trap() {
  __lembas_status \"\$1\"
  ${__lembas_t[2]-}
}"
unset __lembas_t
__lembas_on_exit() {
  local s=$?
  if [ "${BASHPID-$$}" = "$$" ] && [ -r ~/.bash_logout ]; then . ~/.bash_logout; fi
  __lembas_exit_trap "$s"
}
trap __lembas_on_exit EXIT

# The marks need PS0 (bash 4.4).
if (( BASH_VERSINFO[0] > 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] >= 4) )); then
  # OSC 7: the directory, percent-encoded byte by byte outside unreserved characters and /.
  __lembas_osc7() {
    local LC_ALL=C path=$PWD out= c i
    if [[ $path == *[!A-Za-z0-9/._~-]* ]]; then
      for (( i = 0; i < ${#path}; i++ )); do
        c=${path:i:1}
        if [[ $c == [A-Za-z0-9/._~-] ]]; then out+=$c; else printf -v c '%%%02X' "'$c"; out+=$c; fi
      done
      path=$out
    fi
    printf '\e]7;file://%s%s\a' "${HOSTNAME-}" "$path"
  }

  # First in PROMPT_COMMAND: D with the status of a command that ran (PS0 set the flag; an empty
  # line runs nothing and shows no PS0), then OSC 7. $? is handed on to the person's own hooks.
  __lembas_precmd() {
    local s=$?
    if [[ -n ${__lembas_ran-} ]]; then
      unset __lembas_ran
      printf '\e]133;D;%s\a' "$s"
    fi
    __lembas_osc7
    return "$s"
  }

  # Last in PROMPT_COMMAND, after anything that rebuilt the prompt (starship, powerline): A before
  # PS1 and B after it, C (and the flag) at the end of PS0; and keep our two hooks first and last.
  __lembas_postcmd() {
    local s=$? a='\[\e]133;A\a\]' b='\[\e]133;B\a\]' c='${__lembas_ps0[__lembas_ran=1]-}\e]133;C\a'
    local p0=${PS0-}
    PS1=${PS1//"$a"/}
    PS1=$a${PS1//"$b"/}$b
    [[ $p0 == *"$c" ]] || PS0=${p0//"$c"/}$c
    __lembas_keep_hooks
    return "$s"
  }

  __lembas_keep_hooks() {
    local nl=$'\n' e
    if [[ -n ${PROMPT_COMMAND+x} && ${PROMPT_COMMAND@a} == *a* ]]; then
      local n=${#PROMPT_COMMAND[@]}
      [[ ${PROMPT_COMMAND[0]} == __lembas_precmd && ${PROMPT_COMMAND[n-1]} == __lembas_postcmd ]] && return
      local -a rest=()
      for e in "${PROMPT_COMMAND[@]}"; do
        e=${e//"__lembas_precmd$nl"/}
        e=${e//"${nl}__lembas_postcmd"/}
        [[ $e == __lembas_precmd || $e == __lembas_postcmd || -z $e ]] || rest+=("$e")
      done
      PROMPT_COMMAND=(__lembas_precmd "${rest[@]}" __lembas_postcmd)
      return
    fi
    local pc=${PROMPT_COMMAND-}
    [[ $pc == "__lembas_precmd$nl"* && $pc == *"${nl}__lembas_postcmd" ]] && return
    pc=${pc//"__lembas_precmd$nl"/}
    pc=${pc//"${nl}__lembas_postcmd"/}
    PROMPT_COMMAND="__lembas_precmd$nl$pc${nl}__lembas_postcmd"
  }

  __lembas_keep_hooks
fi
