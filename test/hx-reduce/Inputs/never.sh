#!/bin/sh
# Never interesting.
exit 1
