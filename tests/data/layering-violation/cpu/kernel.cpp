// A kernel that includes the Tensor class and the op table: two layering violations
// (tests/CMakeLists.txt).
#include "ditto/tensor.h"
#include "ops/op_table.h"
