# Sourced by the tests that build compressors with optimisations turned off:
# the passes in tcgen's order, a bit each, and the layout of a spec's records.

passes=(dead-code table-sharing fast-hash type-minimisation smart-update)

# The --disable list for a bit mask over $passes.
disabled_list() {
    local mask=$1 list="" i
    for i in "${!passes[@]}"; do
        if (((mask >> i) & 1)); then
            list+="${list:+,}${passes[$i]}"
        fi
    done
    echo "$list"
}

# Sets $fields (widths, comma-separated) and $header_bytes from SPEC's
# canonical form, for synth_trace.
read_layout() {
    local canonical
    canonical=$("$tcgen" --canonical "$1") || return 1
    fields=$(sed -n 's/^\([0-9]*\)-Bit Field .*/\1/p' <<<"$canonical" | paste -sd, -)
    header_bytes=$(($(sed -n 's/^\([0-9]*\)-Bit Header;$/\1/p' <<<"$canonical") / 8))
}
