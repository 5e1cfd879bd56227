# Sourced by scripts/build.sh and scripts/test.sh: compile through ccache
# when it is installed (scripts/install-deps.sh installs it) and no compiler
# launcher was chosen, so a rebuild after a clean, a new build folder or a
# second clone of the repository takes seconds instead of minutes.
# CCACHE_BASEDIR (the repository's root unless set) makes the paths ccache
# hashes relative, so clones in different folders share the cache.
# CMAKE_CXX_COMPILER_LAUNCHER=none turns it off.
if [ "${CMAKE_CXX_COMPILER_LAUNCHER:-}" = none ]; then
  unset CMAKE_CXX_COMPILER_LAUNCHER
elif [ -z "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ] && command -v ccache >/dev/null 2>&1; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache
fi
if [ -n "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ]; then
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(pwd -P)}"
fi
