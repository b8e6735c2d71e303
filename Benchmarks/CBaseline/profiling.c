/*
 * Callgrind client requests around the harness's timed regions; no-ops when not running under valgrind.
 * Profile with: valgrind --tool=callgrind --instr-atstart=no --collect-atstart=no coffer-bench ...
 * (strip the debug info first: valgrind 3.19 cannot read the DWARF 5 of Swift 6.3 builds).
 */

#include <stdio.h>

#include "CBaseline.h"

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define CB_HAVE_CALLGRIND 1
#endif
#endif

void cb_profile_region_begin(void) {
#ifdef CB_HAVE_CALLGRIND
    if (RUNNING_ON_VALGRIND) {
        /* Instrumentation is off outside the timed regions when valgrind runs with --instr-atstart=no. */
        CALLGRIND_START_INSTRUMENTATION;
        CALLGRIND_TOGGLE_COLLECT;
    }
#endif
}

void cb_profile_region_end(int index) {
#ifdef CB_HAVE_CALLGRIND
    if (RUNNING_ON_VALGRIND) {
        char name[32];
        snprintf(name, sizeof name, "region-%03d", index);
        CALLGRIND_TOGGLE_COLLECT;
        CALLGRIND_DUMP_STATS_AT(name);
        CALLGRIND_STOP_INSTRUMENTATION;
    }
#else
    (void)index;
#endif
}
