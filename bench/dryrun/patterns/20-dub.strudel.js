// bench/dryrun: dub, 92 bpm, in A
setcpm(92/4)

// drums: euclidean layers
$: s("bd(3,8), sd(2,8,2), hh(7,16)").bank("RolandTR707")
  .every(4, x => x.fast(2)).gain(.8)
$: s("rim(5,16,3)").bank("RolandTR707").gain(.4).room(.3)

// bass: a sub sine under everything
$: note("<a1 a1 [a1 ~] a2>").s("sine").sustain(1).release(.2).gain(.7)

// chords: voiced, off-beat stabs with delay
$: chord("<Am7 F^7 Dm7 E7>").voicing().s("triangle")
  .struct("~ x ~ x").decay(.3).sustain(.2).delay(.25).room(.4).gain(.35)

// lead: a melody that changes every cycle, panned wide
$: note("<[a5 ~ a5 ~] [~ a4 ~ a5] [a5 a4 ~ ~] [~ ~ a4 ~]>")
  .add(note("<0 3 5 7>")).s("gm_acoustic_bass").jux(rev).room(.5).gain(.25)

// texture: zzfx blips
$: s("zzfx*2").note("<c6 g6>").decay(.05).sustain(0).gain(.1).pan(rand)
