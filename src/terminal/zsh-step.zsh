# lembas shell integration for zsh: read in place of the person's @FILE@ (see .zshenv here).
__lembas_zd_restore
[[ -r ${ZDOTDIR:-$HOME}/@FILE@ ]] && . "${ZDOTDIR:-$HOME}/@FILE@"
__lembas_zd_save
