// A kernel that includes the op table: a layering violation (tests/CMakeLists.txt).
#include "ops/op_table.h"
