package memlimit

var SetFor = set
