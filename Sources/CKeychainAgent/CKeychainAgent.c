#include "CKeychainAgent.h"

#include <sys/prctl.h>

int keychaind_disable_dumps(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }

int keychaind_is_dumpable(void) { return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0); }
