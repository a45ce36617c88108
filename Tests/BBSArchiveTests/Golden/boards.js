BBSBoards([{"boards":[["Golden","金标版","board/Golden/index.html"]],"kind":"all","name":""}]);
