# aiocann's CANN toolkit: bin/setenv.bash, as CANN's runtime package has it; the same as
# ../set_env.sh (source either).
# shellcheck source=../set_env.sh
. "$(cd "$(dirname "${BASH_SOURCE:-$0}")" && pwd -P)/../set_env.sh"
