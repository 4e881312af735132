#pragma once
// Every CPU kernel's declaration, for the op table (ops/op_table.cpp). A kernel file includes
// only its own header, src/cpu/decl/<file>.h, so that declaring a new kernel rebuilds that file and
// the table, not every kernel. Public ops (src/ops/) check arguments, work out shapes and dtypes,
// allocate outputs and then call a kernel chosen by the dispatcher from the op table
// (ops/op_table.def); kernels see only validated arguments.
#include "cpu/decl/attention.h"
#include "cpu/decl/conv.h"
#include "cpu/decl/count.h"
#include "cpu/decl/elementwise.h"
#include "cpu/decl/embedding.h"
#include "cpu/decl/gemm.h"
#include "cpu/decl/grid_sample.h"
#include "cpu/decl/index.h"
#include "cpu/decl/loss.h"
#include "cpu/decl/norm.h"
#include "cpu/decl/pointwise.h"
#include "cpu/decl/pool.h"
#include "cpu/decl/random.h"
#include "cpu/decl/reduce.h"
#include "cpu/decl/resample.h"
#include "cpu/decl/scan.h"
#include "cpu/decl/scatter.h"
#include "cpu/decl/sort.h"
