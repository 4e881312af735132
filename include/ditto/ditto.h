#pragma once
// ditto: tensors and autograd whose results are the same bits on every run.
#include "ditto/autograd.h"
#include "ditto/determinism.h"
#include "ditto/dtype.h"
#include "ditto/error.h"
#include "ditto/factory.h"
#include "ditto/ops.h"
#include "ditto/random.h"
#include "ditto/scalar.h"
#include "ditto/tensor.h"
#include "ditto/threads.h"
#include "ditto/nn.h"
#include "ditto/optim.h"
