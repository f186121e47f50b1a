# lembas shell integration for zsh: read in place of the person's .zlogin, the last start-up file
# (see .zshenv here). Their ZDOTDIR stays; then the marks are added, after everything they set up.
__lembas_zd_restore
unfunction __lembas_zd_restore __lembas_zd_save
[[ -r ${ZDOTDIR:-$HOME}/.zlogin ]] && . "${ZDOTDIR:-$HOME}/.zlogin"

# OSC 7: the directory, percent-encoded byte by byte outside unreserved characters and /.
__lembas_osc7() {
  emulate -L zsh
  local LC_ALL=C p=$PWD out= c i
  if [[ $p == *[^A-Za-z0-9/._~-]* ]]; then
    for (( i = 1; i <= $#p; i++ )); do
      c=${p[i]}
      if [[ $c == [A-Za-z0-9/._~-] ]]; then out+=$c; else printf -v c '%%%02X' "'$c"; out+=$c; fi
    done
    p=$out
  fi
  printf '\e]7;file://%s%s\a' "$HOST" "$p"
}

# C when a command is about to run (an empty line runs none and calls no preexec).
__lembas_preexec() {
  typeset -g __lembas_ran=1
  printf '\e]133;C\a'
}

# The last precmd hook (zsh hands every hook the command's $?): D for a command that ran, OSC 7,
# then A before the prompt and B after it, after anything that rebuilt the prompt (powerlevel10k,
# starship); and if something took the last place since, take it back for the next prompt.
__lembas_precmd() {
  local s=$?
  emulate -L zsh
  if [[ -n ${__lembas_ran-} ]]; then
    unset __lembas_ran
    printf '\e]133;D;%s\a' $s
  fi
  __lembas_osc7
  local a=$'%{\e]133;A\a%}' b=$'%{\e]133;B\a%}'
  PS1=${PS1//$a/}
  PS1=$a${PS1//$b/}$b
  if [[ ${precmd_functions[-1]-} != __lembas_precmd ]]; then
    precmd_functions=(${precmd_functions:#__lembas_precmd} __lembas_precmd)
  fi
}

typeset -ga precmd_functions preexec_functions
precmd_functions+=(__lembas_precmd)
preexec_functions+=(__lembas_preexec)
