#pragma once
// ditto::nn: modules, losses, functional ops and initialisation, as torch.nn.
#include "ditto/nn/activation.h"
#include "ditto/nn/conv.h"
#include "ditto/nn/embedding.h"
#include "ditto/nn/functional.h"
#include "ditto/nn/init.h"
#include "ditto/nn/layers.h"
#include "ditto/nn/loss.h"
#include "ditto/nn/module.h"
#include "ditto/nn/normalization.h"
#include "ditto/nn/resample.h"
#include "ditto/nn/transformer.h"
#include "ditto/nn/utils.h"
