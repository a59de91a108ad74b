package k32

// Publish sends data on the channel topic, to every subscriber in the
// cluster. The container needs the CHANNEL_IPC capability, else Publish
// returns ErrPerm.
func Publish(topic string, data []byte) error {
	return errnoOf(k32Publish(stringPtr(topic), uint32(len(topic)), bytesPtr(data), uint32(len(data))))
}

// eventHandler is the function OnEvent registered.
var eventHandler func(topic string, data []byte)

// OnEvent makes f receive the channel messages of the topics listed in the
// pod's kube32.io/event-topics annotation. Call it from an init function. A
// later call replaces f. The pod needs the CHANNEL_IPC capability to receive.
func OnEvent(f func(topic string, data []byte)) {
	eventHandler = f
}

// serveEvent runs the OnEvent function for the message of the current
// k32_event callback; its result is that of k32_event.
func serveEvent() int32 {
	if eventHandler == nil {
		Log(LevelWarn, "k32: channel message received but no OnEvent function is registered")
		return int32(ErrNoEnt)
	}
	topic, err := getString(k32EventTopic, 64)
	if err != nil {
		Log(LevelError, "k32: reading the event topic: "+err.Error())
		return int32(err.(Errno))
	}
	data, err := getBytes(k32EventData, 256)
	if err != nil {
		Log(LevelError, "k32: reading the event data of "+topic+": "+err.Error())
		return int32(err.(Errno))
	}
	if !protect("handling event "+topic, func() { eventHandler(topic, data) }) {
		return callbackFailed
	}
	return 0
}
