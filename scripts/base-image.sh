# The base image choice of every image this project builds (sourced by the build scripts).
#
#   choose_base IMAGE EXPLICIT   prints the base to build on:
#     IMAGE when it is present; else, unless EXPLICIT=1 (the operator named IMAGE), the local
#     debootstrap base learnai-base:bookworm when present; else IMAGE when `docker pull` gets it
#     within 60 s; else, unless EXPLICIT=1, learnai-base:bookworm made now by debootstrap
#     (scripts/make-debootstrap-base.sh). Fails with a message when none of these works.
# Messages go to stderr; the chosen name alone to stdout.

LOCAL_BASE="learnai-base:bookworm"

have_image() { docker image inspect "$1" >/dev/null 2>&1; }

choose_base() {
    local image="$1" explicit="$2" scripts
    scripts="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
    if have_image "$image"; then
        echo "$image"
    elif [ "$explicit" != "1" ] && have_image "$LOCAL_BASE"; then
        echo "$image is absent: using the local base $LOCAL_BASE" >&2
        echo "$LOCAL_BASE"
    elif timeout 60 docker pull "$image" >/dev/null 2>&1; then
        echo "pulled $image" >&2
        echo "$image"
    elif [ "$explicit" != "1" ] && command -v debootstrap >/dev/null; then
        echo "$image is absent and no registry answers: making a debootstrap base ($LOCAL_BASE)" >&2
        "$scripts/make-debootstrap-base.sh" "$LOCAL_BASE" >&2
        echo "$LOCAL_BASE"
    else
        echo "error: base image $image is absent and cannot be pulled" >&2
        echo "       (install debootstrap, or name an image you have)" >&2
        return 1
    fi
}
