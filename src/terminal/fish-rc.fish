# lembas shell integration for fish, sourced by --init-command after the person's configuration:
# prompt marks (OSC 133) and the directory (OSC 7). fish 4 marks A, C and D itself; then only B
# and OSC 7 are added here.

# OSC 7: the directory, percent-encoded byte by byte outside unreserved characters and /.
function __lembas_osc7
    printf '\e]7;file://%s%s\a' $hostname (string escape --style=url -- $PWD)
end

if test (string split -f1 . -- $version) -lt 4
    # C when a command is about to run; fish also calls this for a blank or comment-only line,
    # which runs nothing: no C, and no D after it.
    function __lembas_preexec --on-event fish_preexec
        string match -qr '^\s*(#.*)?$' -- "$argv"; and return
        set -g __lembas_ran 1
        printf '\e]133;C\a'
    end

    function __lembas_postexec --on-event fish_postexec
        set -l s $status
        set -q __lembas_ran; or return
        set -e __lembas_ran
        printf '\e]133;D;%s\a' $s
    end

    function __lembas_prompt_start --on-event fish_prompt
        printf '\e]133;A\a'
    end
end

# Before each prompt: OSC 7, and B after whatever fish_prompt is now (a theme may define it anew).
# The person's prompt runs first, so it still sees the command's $status and $pipestatus.
function __lembas_prompt_end --on-event fish_prompt
    __lembas_osc7
    functions -q fish_prompt; or return
    functions fish_prompt | string match -q '*__lembas_user_prompt*'; and return
    functions -e __lembas_user_prompt
    functions -c fish_prompt __lembas_user_prompt
    function fish_prompt
        __lembas_user_prompt
        printf '\e]133;B\a'
    end
end
