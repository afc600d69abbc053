#ifndef WEARABLE_GATEWAY_CMOSQUITTO_SHIM_H
#define WEARABLE_GATEWAY_CMOSQUITTO_SHIM_H
#include <mosquitto.h>
#include <mqtt_protocol.h>
/* eventfd(2) wakes the transport's network loop (LoopWakeup); Swift's Glibc module leaves it out. */
#include <sys/eventfd.h>
#endif
