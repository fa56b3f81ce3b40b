// SPDX-License-Identifier: GPL-2.0
/* Instantiate the trace events declared in trace.h, once. */
#define CREATE_TRACE_POINTS
#include "trace.h"
