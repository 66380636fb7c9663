# Sourced by the scripts that start servers and nodes: their teardown never waits forever.
#
# stop_processes SECONDS PID...: asks each process to stop (TERM), waits up to SECONDS for all
# of them to exit, then kills (KILL) those left and says which on stderr: a server that does not
# stop when asked is a defect worth seeing, and a teardown that hangs would hide every result
# after it. The PIDs must be this shell's children (they are reaped here).
stop_processes() {
    local grace="$1" pid deadline
    shift
    (($#)) || return 0
    kill -TERM "$@" 2>/dev/null || true
    deadline=$((SECONDS + grace))
    while :; do
        local left=()
        for pid in "$@"; do
            # An exited child stays a zombie until reaped: only a live state counts.
            local state
            state="$(ps -o stat= -p "$pid" 2>/dev/null)" && [[ "$state" != Z* ]] && left+=("$pid")
        done
        ((${#left[@]})) || break
        if ((SECONDS >= deadline)); then
            for pid in "${left[@]}"; do
                echo "$(basename "$0"): '$(ps -o args= -p "$pid" 2>/dev/null | cut -c1-120)' (pid $pid) did not stop within $grace s of TERM; killed" >&2
            done
            kill -KILL "${left[@]}" 2>/dev/null || true
            break
        fi
        sleep 0.1
    done
    wait "$@" 2>/dev/null || true
}
