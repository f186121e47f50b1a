# lembas shell integration for zsh: read in place of the person's .zshenv, since ZDOTDIR points at
# lembas' start-up dir (@DIR@) when zsh starts. Each of the four start-up files here puts the
# person's ZDOTDIR back, reads their own file from it (so a ZDOTDIR set in their .zshenv is
# followed), and points ZDOTDIR here again for the next one; the last, .zlogin, leaves theirs and
# adds the marks. Between files their ZDOTDIR waits in @DIR@/zdotdir, so that no variable of ours
# is set while their files run; the two helpers below are removed in .zlogin.

if (( ${+LEMBAS_USER_ZDOTDIR} )); then
  export ZDOTDIR=$LEMBAS_USER_ZDOTDIR
  unset LEMBAS_USER_ZDOTDIR
else
  unset ZDOTDIR
fi

__lembas_zd_save() {
  if (( ${+ZDOTDIR} )); then
    print -r -- "${(t)ZDOTDIR}:$ZDOTDIR" >| @DIR@/zdotdir
  else
    : >| @DIR@/zdotdir
  fi
  unset ZDOTDIR
  ZDOTDIR=@DIR@
}

__lembas_zd_restore() {
  local saved=$(<@DIR@/zdotdir)
  unset ZDOTDIR
  [[ -n $saved ]] || return 0
  typeset -g ZDOTDIR=${saved#*:}
  [[ ${saved%%:*} == *-export* ]] && export ZDOTDIR
  return 0
}

[[ -r ${ZDOTDIR:-$HOME}/.zshenv ]] && . "${ZDOTDIR:-$HOME}/.zshenv"
__lembas_zd_save
