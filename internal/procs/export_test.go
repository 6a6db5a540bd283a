package procs

var ForJudgingWith = forJudging
