#!/bin/sh
# Interesting only after a minute: with a shorter --timeout, never. The sleep
# is a child of the test, so the timeout must kill the whole process group.
sleep 60
