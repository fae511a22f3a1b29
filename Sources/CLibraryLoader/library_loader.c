#include "CLibraryLoader.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int rs_library_open(const char *title, const char *variable, const char *const *names, size_t name_count,
                    const char *install, const char *requirement, const char *const *symbols,
                    size_t symbol_count, void **found, char *failure, size_t failure_size) {
    void *handle = NULL;
    size_t used = 0;
    char reasons[1024];
    reasons[0] = 0;
    /* The variable names the library instead (a build of one's own, or a test). */
    const char *chosen = getenv(variable);
    if (chosen != NULL && chosen[0] != 0) {
        names = &chosen;
        name_count = 1;
    }
    for (size_t i = 0; i < name_count && handle == NULL; i++) {
        handle = dlopen(names[i], RTLD_NOW | RTLD_GLOBAL);
        if (handle == NULL && used < sizeof reasons) {
            const char *why = dlerror();
            int n = snprintf(reasons + used, sizeof reasons - used, "%s%s", used > 0 ? "; " : "",
                             why ? why : names[i]);
            if (n > 0) used += (size_t)n;
        }
    }
    if (handle == NULL) {
        snprintf(failure, failure_size, "cannot load %s (%.700s): %s", title, reasons, install);
        return -1;
    }
    /* Every function first: the caller publishes them all only when each is found. */
    for (size_t i = 0; i < symbol_count; i++) {
        found[i] = dlsym(handle, symbols[i]);
        if (found[i] == NULL) {
            const char *why = dlerror();
            snprintf(failure, failure_size, "%s has no function %s (%s): %s", title, symbols[i], requirement,
                     why ? why : "not found");
            return -1;
        }
    }
    failure[0] = 0;
    return 0;
}

void rs_library_exit(const char *failure) {
    fprintf(stderr, "regionsearch: error: %s\n", failure);
    exit(70);
}
