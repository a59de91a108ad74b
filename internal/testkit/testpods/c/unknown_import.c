// Imports a k32 function that the ABI does not have.
#include "k32test.h"
K32_IMPORT(k32_nope) int32_t k32_nope(void);
K32_EXPORT(k32_handle) int32_t k32_handle(void) { return k32_nope(); }
