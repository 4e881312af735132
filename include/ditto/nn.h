#pragma once
// ditto::nn: modules, losses, functional ops and initialisation, as torch.nn.
#include "ditto/nn/functional.h"
#include "ditto/nn/init.h"
#include "ditto/nn/layers.h"
#include "ditto/nn/module.h"
