#ifndef WEARABLE_GATEWAY_CMOSQUITTO_SHIM_H
#define WEARABLE_GATEWAY_CMOSQUITTO_SHIM_H
#include <mosquitto.h>
#include <mqtt_protocol.h>
#endif
