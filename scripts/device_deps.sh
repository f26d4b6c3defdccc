# Sourced on the GPU machine: sets NARUMI_DEPS to the GoogleTest sources and Eigen headers that
# scripts/prepare_device_carry.sh packed into .deps/deps.tar.xz (1.5 MB instead of 12.5 MB), unpacked into
# /tmp/narumi-deps.  $1: the folder that holds .deps.
narumi_deps_archive="$1/.deps/deps.tar.xz"
[ -f "$narumi_deps_archive" ] || { echo "no $narumi_deps_archive: run scripts/prepare_device_carry.sh and copy .deps here"; exit 1; }
export NARUMI_DEPS=/tmp/narumi-deps
rm -rf "$NARUMI_DEPS" && mkdir -p "$NARUMI_DEPS" && tar -C "$NARUMI_DEPS" -xJf "$narumi_deps_archive"
