# Writes OUT, the build's provenance (src/cli/build_info.hpp), at every build: the project's version,
# the git commit of the source tree ("-dirty" when it has uncommitted changes; GIT_COMMIT when
# given, as the image build gives it without .git in its context; "unknown" without git), and the
# Karmada version whose behaviour the binary matches. The file is rewritten only when its text
# changes, so an unchanged tree recompiles nothing.
#
#   cmake -DSOURCE_DIR=... -DOUT=... -DVERSION=... -DKARMADA_VERSION=... -DKARMADA_COMMIT=...
#         [-DGIT_COMMIT=...] -P cmake/build_info.cmake
if(NOT GIT_COMMIT)
  set(GIT_COMMIT "unknown")
  find_program(GIT git)
  if(GIT)
    execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} rev-parse --short=12 HEAD
                    OUTPUT_VARIABLE head OUTPUT_STRIP_TRAILING_WHITESPACE
                    RESULT_VARIABLE head_failed ERROR_QUIET)
    if(NOT head_failed AND head)
      set(GIT_COMMIT "${head}")
      execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} status --porcelain --untracked-files=no
                      OUTPUT_VARIABLE changes RESULT_VARIABLE status_failed ERROR_QUIET)
      if(NOT status_failed AND changes)
        string(APPEND GIT_COMMIT "-dirty")
      endif()
    endif()
  endif()
endif()
set(text "// Generated at build time by cmake/build_info.cmake: do not edit.
#include \"cli/build_info.hpp\"

namespace kpw::build {

std::string_view version() { return \"${VERSION}\"; }
std::string_view commit() { return \"${GIT_COMMIT}\"; }
std::string_view karmada_version() { return \"${KARMADA_VERSION}\"; }
std::string_view karmada_commit() { return \"${KARMADA_COMMIT}\"; }

}  // namespace kpw::build
")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
