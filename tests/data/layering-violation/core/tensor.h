// core, the lowest layer.
#include "ditto/tensor.h"
