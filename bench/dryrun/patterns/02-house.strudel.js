// bench/dryrun: house, 120 bpm, in F
setcpm(120/4)

// drums: four on the floor, claps on two and four, 16th hats
$: s("bd*4").bank("AkaiMPC60").gain(.9)
$: s("~ cp ~ cp").bank("AkaiMPC60").room(.2)
$: s("hh*16").bank("AkaiMPC60").gain("[.5 .25]*8").pan(sine.range(.3, .7).slow(2))

// bass: eighth notes through a swept low-pass
$: note("<f2 f2 [f2 f3] f1>*4").s("triangle")
  .lpf(sine.range(300, 1600).slow(8)).lpq(6).decay(.15).sustain(.3).gain(.5)

// lead: a melody that changes every cycle, panned wide
$: note("<[f5 ~ f5 ~] [~ f4 ~ f5] [f5 f4 ~ ~] [~ ~ f4 ~]>")
  .add(note("<0 3 5 7>")).s("gm_acoustic_bass").jux(rev).room(.5).gain(.25)

// texture: filtered noise sweeps
$: s("white").lpf(sine.range(200, 4000).slow(16)).attack(1).release(2).sustain(1).gain(.05)

// everything a little wider
all(x => x.room(.1))
