// The MQTT vocabulary (MQTTQoS, UserProperty) is part of this module's API: its users need no
// second import to spell a message's QoS or properties.
@_exported import MQTTVocabulary
